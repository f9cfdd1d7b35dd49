import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * Runs e2e spec files as one jest test file. Jest gives every test file a fresh module registry, so each file
 * loaded the whole application again (Nest, TypeORM, the AWS SDK and every area: about 2 700 modules), which cost
 * about 2.4 s a file. A group loads them once, then runs its specs one after another, each inside a describe named
 * after its path. A spec keeps everything it had as a file: its own app, database copy, Redis prefix and mail sink,
 * made in its own beforeAll and closed in its own afterAll.
 *
 * One spec of a group: `npm run test:e2e -- --testPathPatterns <group> -t <context>/<area>` (jest skips the hooks
 * of describes with no selected test). test/architecture/e2e-groups.spec.ts checks that every spec file is in
 * exactly one group of its own folder.
 */
export function e2eGroup(dir: string, specs: readonly string[]): void {
  for (const spec of specs) {
    const file = join(dir, `${spec}.e2e-spec.ts`);
    describe(relative(join(ROOT, 'test', 'e2e'), file), () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- registering the spec's describes here
      require(file);
    });
  }
}
