import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import createDOMPurify, { type Config, type DOMPurify } from 'dompurify';
import { JSDOM } from 'jsdom';

const CONFIG: Config & { RETURN_DOM_FRAGMENT: true } = {
  USE_PROFILES: { svg: true, svgFilters: true },
  // DiceBear draws each part once under <defs> and places it with <use href="#...">.
  ADD_TAGS: ['use'],
  // <style> is not needed by the style and could pull in remote resources through CSS.
  FORBID_TAGS: ['metadata', 'foreignObject', 'image', 'script', 'style'],
  // The metadata block would otherwise leave its RDF text behind as loose text nodes.
  ADD_FORBID_CONTENTS: ['metadata', 'foreignObject'],
  RETURN_DOM_FRAGMENT: true,
};

/**
 * Makes an SVG safe to serve: only drawing elements and attributes survive, and references may only point
 * inside the document. One jsdom window for the process (creating one costs far more than a sanitize).
 */
@Injectable()
export class AvatarSanitizer implements OnModuleDestroy {
  private readonly dom = new JSDOM('');
  private readonly purify: DOMPurify;
  private readonly serializer: XMLSerializer;

  constructor() {
    const window = this.dom.window;
    this.purify = createDOMPurify(window);
    this.purify.addHook('afterSanitizeAttributes', (node) => {
      for (const name of ['href', 'xlink:href']) {
        const value = node.getAttribute(name);
        if (value !== null && !value.startsWith('#')) node.removeAttribute(name);
      }
    });
    this.serializer = new window.XMLSerializer();
  }

  /**
   * The sanitized SVG as XML. DOMPurify's own string output is HTML serialization (`&nbsp;` and the like),
   * which is not well-formed XML, and an `image/svg+xml` document is parsed as XML.
   */
  sanitize(svg: string): string {
    const root = this.purify.sanitize(svg, CONFIG).firstElementChild;
    if (root?.nodeName.toLowerCase() !== 'svg') throw new Error('the sanitized avatar has no <svg> root');
    return this.serializer.serializeToString(root);
  }

  onModuleDestroy(): void {
    this.dom.window.close();
  }
}
