// Type-aware lint: no floating promises, no unused code, no `any` without a stated reason, no deep
// relative imports (use the @/ alias for anything outside the current module folder), and area boundaries.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/*
 * Area boundaries (docs/DECISIONS.md, "Boundaries by rule"). An area reaches another only through its public
 * surface: `<area>.module.ts`, its top-level `*.service.ts` (exported services), `dto/**` (the contract's shapes),
 * `*.types.ts` (read types, pure helpers and shared limits it chooses to offer) and `*.port.ts` (ports it asks
 * another area to provide). Repositories, entities and every other file stay internal. The few helper files
 * that are public by decision are named here, each with its reason in docs/DECISIONS.md.
 */
// Contexts group areas (DESIGN "Contexts"): `src/modules/<context>/<area>/` is an area like `src/modules/<area>/`.
const CONTEXTS = [
  'identity',
  'tenancy',
  'learning',
  'practice',
  'community',
  'insight',
  'assistant',
  'integrations',
  'platform',
];
const AREAS = readdirSync(new URL('./src/modules/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) =>
    CONTEXTS.includes(entry.name)
      ? readdirSync(new URL(`./src/modules/${entry.name}/`, import.meta.url), { withFileTypes: true })
          .filter((sub) => sub.isDirectory())
          .map((sub) => `${entry.name}/${sub.name}`)
      : [entry.name],
  );
const PUBLIC_HELPERS = [
  // The catalog's visibility and full-text rules as SQL fragments, so search and authoring never disagree with it.
  'courses/catalog-sql',
];
const PUBLIC_FILE = String.raw`[^/]+\.(?:module|service|types|port)`;
const RELATIVE_UP_TWO = { group: ['../../*'], message: 'Use the @/ alias for imports outside this module.' };
const RELATIVE_UP_ONE = {
  regex: String.raw`^\.\./`,
  message: 'Use the @/ alias for imports outside this module (`..` from an area folder is another area).',
};

/** Another area's internals, seen from `area` (null: from outside every area, where all areas are "another"). */
function internalsOfOtherAreas(area) {
  const notOwn = area ? `(?!${area}/)` : '';
  const notPublicHelper = `(?!(?:${PUBLIC_HELPERS.join('|')})$)`;
  return {
    regex: `^@/modules/${notOwn}${notPublicHelper}(?:(?:${CONTEXTS.join('|')})/[^/]+|(?!(?:${CONTEXTS.join('|')})/)[^/]+)/(?!dto/)(?!${PUBLIC_FILE}$)`,
    message:
      "Another area's internals: import its *.module, a top-level *.service, dto/, *.types or *.port instead " +
      '(add a method to its service, or a port, if you need more). See docs/DECISIONS.md, boundaries.',
  };
}

const restrict = (...patterns) => ['error', { patterns }];

/** One block per area: files at the area's top level may not go up at all; nested files may not go up twice. */
const boundaryBlocks = AREAS.flatMap((area) => [
  {
    files: [`src/modules/${area}/*.ts`],
    rules: { 'no-restricted-imports': restrict(RELATIVE_UP_ONE, internalsOfOtherAreas(area)) },
  },
  {
    files: [`src/modules/${area}/*/**/*.ts`],
    rules: { 'no-restricted-imports': restrict(RELATIVE_UP_TWO, internalsOfOtherAreas(area)) },
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
  ...boundaryBlocks,
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
      'no-restricted-imports': 'off',
    },
  },
  prettier,
);
