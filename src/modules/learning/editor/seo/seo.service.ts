import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { SeoRebuildDto } from '@/modules/learning/editor/dto/editor.dto';
import { EditorRepository } from '@/modules/learning/editor/editor.repository';
import { renderCoursePage } from './seo-page';

const BATCH = 200;
/** Slugs as the database allows them: file names that cannot leave the folder. */
const SAFE_SLUG = /^[a-z0-9-]{3,80}$/;

/**
 * Static, indexable pages of the published courses under `{storageDir}/seo/courses/{slug}.html`, for the web front
 * end or a CDN to serve. Each page is written atomically (a temporary file renamed over it), only when its content
 * changed; pages of courses no longer published are removed. Rebuilds in one process run one at a time.
 */
@Injectable()
export class SeoService {
  private readonly logger = new Logger('Seo');
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly editor: EditorRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get directory(): string {
    return join(this.config.storageDir, 'seo', 'courses');
  }

  rebuildAll(): Promise<SeoRebuildDto> {
    const run = this.queue.then(() => this.rebuild());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async rebuild(): Promise<SeoRebuildDto> {
    const dir = this.directory;
    await mkdir(dir, { recursive: true });
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
        const file = join(dir, `${course.slug}.html`);
        const current = await readFile(file, 'utf8').catch(() => null);
        if (current === html) {
          result.skipped++;
          continue;
        }
        await writeAtomically(dir, file, html);
        result.built++;
        result.slugs.push(course.slug);
      }
    }
    let removed = 0;
    for (const name of await readdir(dir)) {
      if (!name.endsWith('.html') || published.has(name.slice(0, -'.html'.length))) continue;
      await unlink(join(dir, name)).catch(() => undefined);
      removed++;
    }
    this.logger.log({ ...result, slugs: result.slugs.length, removed }, 'SEO pages rebuilt');
    return result;
  }
}

async function writeAtomically(dir: string, file: string, content: string): Promise<void> {
  const temporary = join(dir, `.${randomBytes(8).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, content, { encoding: 'utf8', flag: 'wx' });
    await rename(temporary, file);
  } catch (err) {
    await unlink(temporary).catch(() => undefined);
    throw err;
  }
}
