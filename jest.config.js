// Three projects: unit tests beside the code; integration tests (test/integration/<context>/<area>.int-spec.ts)
// that run one area's services and repositories on real PostgreSQL and Redis without HTTP; e2e specs
// (test/e2e/<context>/<area>.e2e-spec.ts) that boot the whole app against real PostgreSQL, Redis and an SMTP sink.
// Jest runs the e2e specs through their groups (test/e2e/<context>/<group>.e2e-group.ts, see
// test/support/e2e-group.ts): a group loads the application's modules once for all its specs. The global setup
// migrates one template database per run, which the integration and e2e specs copy.
const swc = ['@swc/jest', { swcrc: true }];
const moduleNameMapper = {
  '^@/(.*)$': '<rootDir>/src/$1',
  '^@migrations$': '<rootDir>/migrations/index.ts',
};
const common = {
  rootDir: __dirname,
  transform: { '^.+\\.ts$': swc },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  testEnvironment: 'node',
};

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: 2,
  // Each e2e file boots a whole application; what a file leaves behind adds up in a long-lived worker (it reached
  // the 4 GB heap limit with 165 files). A worker above this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1536MB',
  testTimeout: 60_000,
  slowTestThreshold: 20,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/migrations/**/*.spec.ts',
        '<rootDir>/test/architecture/**/*.spec.ts',
      ],
      setupFiles: ['<rootDir>/test/support/unit-setup.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/*/*.e2e-group.ts'],
    },
  ],
};
