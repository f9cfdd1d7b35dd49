import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, type TestApp } from '../../support/test-app';

const run = promisify(execFile);

interface Finding {
  code: string;
  severity: number;
  message: string;
  path: (string | number)[];
}

/**
 * The API description judged by a third party: Spectral with its OpenAPI rules and the OWASP API Security ruleset,
 * as committed in `.spectral.mjs` (each rule narrowed or turned off there says why). No error and no warning.
 * Test-only operations (`/api/v1/_probe...`, mounted by the test app) are left out.
 */
describe('OpenAPI description under Spectral (OpenAPI + OWASP rules)', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await createTestApp();
    dir = mkdtempSync(join(tmpdir(), 'spectral-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('has no finding', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, unknown> };
    };
    for (const path of Object.keys(doc.paths)) if (path.startsWith('/api/v1/_probe')) delete doc.paths[path];
    for (const name of Object.keys(doc.components.schemas))
      if (name.startsWith('Probe')) delete doc.components.schemas[name];
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const cli = require.resolve('@stoplight/spectral-cli/dist/index.js');
    const out = await run(
      process.execPath,
      [
        cli,
        'lint',
        file,
        '--ruleset',
        join(__dirname, '..', '..', '..', '.spectral.mjs'),
        '--format',
        'json',
        '--quiet',
      ],
      { maxBuffer: 256 * 1024 * 1024 },
    ).catch((err: { stdout?: string; stderr?: string }) => {
      if (!err.stdout) throw new Error(`spectral did not run: ${err.stderr ?? 'no output'}`);
      return { stdout: err.stdout };
    });
    const findings = JSON.parse(out.stdout) as Finding[];
    const summary = findings.map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`);
    expect(summary).toEqual([]);
  }, 180_000);
});
