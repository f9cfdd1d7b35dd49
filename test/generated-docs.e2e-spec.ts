import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accessTable } from '@/core/http/access-table';
import { createTestApp, type TestApp } from './support/test-app';

const FILE = join(__dirname, '..', 'docs', 'access-table.md');

describe('access table', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it('matches docs/access-table.md (regenerate with `npm run access-table`)', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    const table = accessTable(doc, (path) => path.includes('/_probe'));
    if (process.env.UPDATE_ACCESS_TABLE === '1') writeFileSync(FILE, table);
    expect(existsSync(FILE) ? readFileSync(FILE, 'utf8') : '').toBe(table);
  });
});
