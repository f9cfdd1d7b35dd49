// Type-aware lint: no floating promises, no unused code, no `any` without a stated reason, no deep
// relative imports (use the @/ alias for anything outside the current module folder), and area boundaries.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/*
 * Area boundaries (docs/DECISIONS.md, "One public surface per area"). From outside an area, the only imports of it
 * are `@/modules/<context>/<area>` (its index.ts: services, ports, DTOs, types, event payloads) and, for
 * composition, its `<area>[-topic].module.ts`; test/ and bench/ may also import its `testing.ts` (internals the
 * suites reach on purpose). Inside an area, files import each other relatively and never their own index.
 */
const MODULES = new URL('./src/modules/', import.meta.url);
const subfolders = (url) =>
  readdirSync(url, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
/** Every area as `<context>/<area>` (docs/DECISIONS.md, "Contexts"). */
const AREAS = subfolders(MODULES).flatMap((context) =>
  subfolders(new URL(`${context}/`, MODULES)).map((area) => `${context}/${area}`),
);
const RELATIVE_UP_TWO = { group: ['../../*'], message: 'Use the @/ alias for imports outside this module.' };
const RELATIVE_UP_ONE = {
  regex: String.raw`^\.\./`,
  message: 'Use the @/ alias for imports outside this module (`..` from an area folder is another area).',
};

/**
 * Deep imports of another area, seen from `area` (null: from outside every area, where all areas are "another");
 * `testing`: whether the area's testing.ts is allowed (test/ and bench/ only).
 */
function internalsOfOtherAreas(area, { testing = false } = {}) {
  const notOwn = area ? `(?!${area}/)` : '';
  const allowed = [String.raw`[^/]+\.module$`, ...(testing ? ['testing$'] : [])].join('|');
  return {
    regex: `^@/modules/${notOwn}[^/]+/[^/]+/(?!(?:${allowed}))`,
    message:
      "Another area's internals: import `@/modules/<context>/<area>` (its index.ts) instead, or its *.module for " +
      'composition' +
      (testing ? ', or its testing.ts' : '') +
      ' (export what you need from the index on purpose). See docs/DECISIONS.md, "One public surface per area".',
  };
}

/** Inside an area, its own index is the outside's view: importing it closes a cycle through the barrel. */
const ownIndex = (area) => ({
  regex: `^@/modules/${area}(?:/index)?$`,
  message: "Inside an area, import the file itself (relatively), never the area's own index.ts.",
});

const restrict = (...patterns) => ['error', { patterns }];

/** One block per area: files at the area's top level may not go up at all; nested files may not go up twice. */
const boundaryBlocks = AREAS.flatMap((area) => [
  {
    files: [`src/modules/${area}/*.ts`],
    rules: { 'no-restricted-imports': restrict(RELATIVE_UP_ONE, internalsOfOtherAreas(area), ownIndex(area)) },
  },
  {
    files: [`src/modules/${area}/*/**/*.ts`],
    rules: { 'no-restricted-imports': restrict(RELATIVE_UP_TWO, internalsOfOtherAreas(area), ownIndex(area)) },
  },
  {
    // Unit specs may reach test/support relatively; the area boundary holds for them too.
    files: [`src/modules/${area}/**/*.spec.ts`],
    rules: { 'no-restricted-imports': restrict(internalsOfOtherAreas(area), ownIndex(area)) },
  },
]);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.data/**',
      'storage/**',
      'bench/results/**',
      // Lint fixtures: files that must fail (test/architecture lints them through the ESLint API).
      'test/fixtures/public-surface/**',
      // Plain JavaScript (config, scripts, benchmark harness) is not part of the typed program.
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
      'no-restricted-imports': restrict(RELATIVE_UP_TWO, internalsOfOtherAreas(null)),
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // The core never depends on an area: areas provide what it needs through ports (src/core/ports, TenancyResolver).
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(RELATIVE_UP_TWO, {
        regex: '^@/modules/',
        message: 'The core never imports an area; declare a port in src/core and let the area provide it.',
      }),
    },
  },
  {
    // Migrations are history: they import nothing from the areas (a frozen copy of a rule lives in migrations/frozen).
    files: ['migrations/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(RELATIVE_UP_TWO, {
        regex: String.raw`(?:^@/modules/|/src/modules/)`,
        message: 'A migration imports nothing from src/modules; keep a frozen copy under migrations/frozen.',
      }),
    },
  },
  ...boundaryBlocks,
  {
    files: ['src/core/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': restrict({
        regex: '^@/modules/',
        message: 'The core never imports an area; declare a port in src/core and let the area provide it.',
      }),
    },
  },
  {
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'bench/**/*.ts'],
    rules: {
      // Tests read loosely typed HTTP bodies and rows; asserting on them is the point.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Suites and benchmarks see the areas as other areas do, plus each area's testing.ts.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-imports': restrict(internalsOfOtherAreas(null, { testing: true })) },
  },
  prettier,
);
