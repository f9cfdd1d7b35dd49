import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventsMarkdown } from '@/core/events/event-catalog';
import { EventSubscribers } from '@/core/events/event-subscribers';
import { accessTable } from '@/core/http/access-table';
import { errorCatalogsMarkdown } from '@/core/http/error-catalogs';
import { createTestApp, type TestApp } from '../../support/test-app';

const DOCS = join(__dirname, '..', '..', '..', 'docs');
const UPDATE = process.env.UPDATE_DOCS === '1';

/** A generated document must equal what the code generates now; `npm run docs:generate` rewrites them all. */
function expectCurrent(file: string, generated: string): void {
  const path = join(DOCS, file);
  if (UPDATE) writeFileSync(path, generated);
  expect(existsSync(path) ? readFileSync(path, 'utf8') : '').toBe(generated);
}

describe('generated documents (regenerate with `npm run docs:generate`)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it('docs/access-table.md matches the access declarations', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    expectCurrent(
      'access-table.md',
      accessTable(doc, (path) => path.includes('/_probe')),
    );
  });

  it('docs/events.md matches the event catalog and the subscribers found at start', () => {
    const subscribers = t.app.get(EventSubscribers);
    expectCurrent(
      'events.md',
      eventsMarkdown((name) =>
        subscribers
          .of(name)
          .map((s) => s.id)
          .filter((id) => !id.startsWith('probe.')),
      ),
    );
  });

  it('docs/error-codes.md matches the error-code catalog', () => {
    expectCurrent('error-codes.md', errorCatalogsMarkdown());
  });
});
