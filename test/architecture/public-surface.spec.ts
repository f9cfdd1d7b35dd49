import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.join(__dirname, '..', '..');
const FIXTURE = readFileSync(path.join(ROOT, 'test', 'fixtures', 'public-surface', 'deep-imports.ts'), 'utf8');

/** The lines of the fixture the boundary rule refuses when the fixture sits at `filePath`. */
async function refusedLines(filePath: string): Promise<number[]> {
  const eslint = new ESLint({
    cwd: ROOT,
    ignore: false,
    // Only the boundary rule, without type information, so the fixture can be linted as if it sat anywhere.
    ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  });
  const [result] = await eslint.lintText(FIXTURE, { filePath: path.join(ROOT, filePath) });
  expect(result.messages.filter((m) => m.ruleId !== 'no-restricted-imports')).toEqual([]);
  return result.messages.map((m) => m.line);
}

describe('the public surface of the areas (eslint.config.mjs)', () => {
  // Fixture lines: 3 repository, 4 service file, 5 job definitions, 6 module, 7 index, 8 testing.ts.
  it('refuses deep imports of an area from another area, but not its index or its module', async () => {
    expect(await refusedLines('src/modules/learning/notes/notes.probe.ts')).toEqual([3, 4, 5, 8]);
  });

  it('refuses them from the apps too', async () => {
    expect(await refusedLines('src/apps/probe.ts')).toEqual([3, 4, 5, 8]);
  });

  it('lets tests use testing.ts, and nothing else deep', async () => {
    expect(await refusedLines('test/e2e/identity/probe.e2e-spec.ts')).toEqual([3, 4, 5]);
  });

  it("refuses an area importing its own index (and still another area's internals)", async () => {
    expect(await refusedLines('src/modules/identity/users/users.probe.ts')).toEqual([5, 7]);
  });
});
