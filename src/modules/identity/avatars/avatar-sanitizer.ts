import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Config, DOMPurify } from 'dompurify';
import type { JSDOM } from 'jsdom';

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

interface Window {
  dom: JSDOM;
  purify: DOMPurify;
  serializer: XMLSerializer;
}

/**
 * Makes an SVG safe to serve: only drawing elements and attributes survive, and references may only point
 * inside the document. One jsdom window for the process (creating one costs far more than a sanitize), made on
 * the first avatar drawn: loading jsdom and opening its window take about 90 MB, which processes that never draw
 * an avatar (the worker, an API instance behind a cache) should not carry.
 */
@Injectable()
export class AvatarSanitizer implements OnModuleDestroy {
  private window?: Window;

  /**
   * The sanitized SVG as XML. DOMPurify's own string output is HTML serialization (`&nbsp;` and the like),
   * which is not well-formed XML, and an `image/svg+xml` document is parsed as XML.
   */
  sanitize(svg: string): string {
    const { purify, serializer } = this.open();
    const root = purify.sanitize(svg, CONFIG).firstElementChild;
    if (root?.nodeName.toLowerCase() !== 'svg') throw new Error('the sanitized avatar has no <svg> root');
    return serializer.serializeToString(root);
  }

  onModuleDestroy(): void {
    this.window?.dom.window.close();
    this.window = undefined;
  }

  private open(): Window {
    if (this.window) return this.window;
    // Loaded here, not at the top, so that the cost above is paid only by a process that draws an avatar.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { JSDOM } = require('jsdom') as typeof import('jsdom');
    const createDOMPurify = require('dompurify') as typeof import('dompurify');
    /* eslint-enable @typescript-eslint/no-require-imports */
    const dom = new JSDOM('');
    const purify = createDOMPurify(dom.window);
    purify.addHook('afterSanitizeAttributes', (node) => {
      for (const name of ['href', 'xlink:href']) {
        const value = node.getAttribute(name);
        if (value !== null && !value.startsWith('#')) node.removeAttribute(name);
      }
    });
    this.window = { dom, purify, serializer: new dom.window.XMLSerializer() };
    return this.window;
  }
}
