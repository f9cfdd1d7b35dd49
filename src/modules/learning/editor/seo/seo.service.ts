import { text } from 'node:stream/consumers';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { FileNotFoundError, FileStore } from '@/core/files/file-store';
import type { SeoRebuildDto } from '@/modules/learning/editor/dto/editor.dto';
import { EditorRepository } from '@/modules/learning/editor/editor.repository';
import { renderCoursePage } from './seo-page';

const BATCH = 200;
/** Slugs as the database allows them: file names that cannot leave the folder. */
const SAFE_SLUG = /^[a-z0-9-]{3,80}$/;

/** Where the pages live in the file store. */
const FOLDER = 'seo/courses';

/**
 * Static, indexable pages of the published courses at `seo/courses/{slug}.html` in the file store (under
 * `STORAGE_URL`: a folder, or a bucket a CDN can serve), as raw HTML for the web front end or a CDN to serve.
 * Each page is written atomically by the store, only when its content changed; pages of courses no longer
 * published are removed. Rebuilds in one process run one at a time.
 */
@Injectable()
export class SeoService {
  private readonly logger = new Logger('Seo');
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly editor: EditorRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly files: FileStore,
  ) {}

  rebuildAll(): Promise<SeoRebuildDto> {
    const run = this.queue.then(() => this.rebuild());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async rebuild(): Promise<SeoRebuildDto> {
    const result: SeoRebuildDto = { built: 0, skipped: 0, slugs: [] };
    const published = new Set<string>();
    for (let after: string | null = null; ;) {
      const batch = await this.editor.publishedForSeo(after, BATCH);
      if (batch.length === 0) break;
      after = batch[batch.length - 1].id;
      for (const course of batch) {
        if (!SAFE_SLUG.test(course.slug)) {
          this.logger.warn({ course_id: course.id }, 'Course slug not usable as a file name; page skipped');
          continue;
        }
        published.add(course.slug);
        const html = renderCoursePage(course, this.config.webUrl);
        const key = `${FOLDER}/${course.slug}.html`;
        if ((await this.current(key)) === html) {
          result.skipped++;
          continue;
        }
        await this.files.write(key, Buffer.from(html, 'utf8'), { raw: true, contentType: 'text/html; charset=utf-8' });
        result.built++;
        result.slugs.push(course.slug);
      }
    }
    let removed = 0;
    for (const key of await this.files.list(FOLDER)) {
      const name = key.slice(FOLDER.length + 1);
      if (!name.endsWith('.html') || name.includes('/') || published.has(name.slice(0, -'.html'.length))) continue;
      await this.files.delete(key);
      removed++;
    }
    this.logger.log({ ...result, slugs: result.slugs.length, removed }, 'SEO pages rebuilt');
    return result;
  }

  /** The page as stored, or null when there is none. */
  private async current(key: string): Promise<string | null> {
    try {
      return await text(await this.files.read(key, { raw: true }));
    } catch (err) {
      if (err instanceof FileNotFoundError) return null;
      throw err;
    }
  }
}
