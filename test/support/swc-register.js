/*
 * Lets a child process started by an e2e test run the TypeScript sources as jest does: each `.ts` file is compiled
 * by SWC with the project's .swcrc on require, and the `@/` and `@migrations` aliases resolve as in jest.config.js.
 * Usage: node --require ./test/support/swc-register.js test/support/<script>.ts
 */
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const crypto = require('node:crypto');
const os = require('node:os');
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

// Compiled output is kept on disk by content: processes started one after another (or a suite starting several)
// compile each file once.
const cacheDir = path.join(os.tmpdir(), 'lp-swc-cache');
fs.mkdirSync(cacheDir, { recursive: true });
const swcVersion = require('@swc/core/package.json').version;
const optionsHash = crypto.createHash('sha256').update(swcVersion).update(JSON.stringify(swcrc)).digest('hex');

require.extensions['.ts'] = function (module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const key = crypto.createHash('sha256').update(optionsHash).update(filename).update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  let code;
  try {
    code = fs.readFileSync(cached, 'utf8');
  } catch {
    code = transformSync(source, { ...swcrc, filename, swcrc: false, sourceMaps: 'inline' }).code;
    const temporary = `${cached}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, code);
    fs.renameSync(temporary, cached);
  }
  module._compile(code, filename);
};
