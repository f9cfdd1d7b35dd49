/*
 * Lets a child process started by an e2e test run the TypeScript sources as jest does: each `.ts` file is compiled
 * by SWC with the project's .swcrc on require, and the `@/` and `@migrations` aliases resolve as in jest.config.js.
 * Usage: node --require ./test/support/swc-register.js test/support/<script>.ts
 */
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const root = path.resolve(__dirname, '..', '..');
const swcrc = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
delete swcrc.$schema;

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request.startsWith('@/')) request = path.join(root, 'src', request.slice(2));
  else if (request === '@migrations') request = path.join(root, 'migrations', 'index.ts');
  return resolve.call(this, request, ...rest);
};

require.extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    ...swcrc,
    filename,
    swcrc: false,
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
