import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(__dirname, '..', '..');

/**
 * Files that open their own HTTP requests with Node's `request`, each passing the core's guarded agents
 * (`GuardedNet.httpAgent` / `httpsAgent`): the address check happens in those agents' look-up.
 */
const NODE_REQUEST_ALLOWED = new Set([
  'modules/integrations/webhooks/webhook-sender.ts',
  'modules/learning/certificates/logo-fetcher.ts',
  'modules/community/notifications/push/web-push-sender.ts',
]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * extensions-v3 6.7: every outbound request goes through src/core/net (one guarded look-up). This fails when code
 * under src/ calls the global `fetch`, `http(s).request` / `get`, or imports Node's `request` outside the allow-list.
 */
describe('outbound requests go through src/core/net', () => {
  const files = sources(SRC)
    .map((path) => ({ file: relative(SRC, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }))
    .filter(({ file }) => !file.startsWith('core/net/'));

  it('no global fetch(', () => {
    const offenders = files
      .filter(({ text }) => /(?<![.\w])fetch\s*\(/.test(text.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')))
      .map(({ file }) => file);
    // `async fetch(` method declarations are not calls of the global.
    const calls = offenders.filter((file) => {
      const text = files.find((f) => f.file === file)!.text;
      return text
        .split('\n')
        .some((line) => /(?<![.\w])fetch\s*\(/.test(line) && !/^\s*(async\s+)?fetch\s*\(/.test(line));
    });
    expect(calls).toEqual([]);
  });

  it('no http.request / https.request / get, and Node request imports only where guarded agents are passed', () => {
    const offenders = files
      .filter(({ file, text }) => {
        if (/\bhttps?\.(request|get)\s*\(/.test(text)) return true;
        const importsRequest = /import\s*\{[^}]*\b(request|get)\b[^}]*\}\s*from\s*'node:https?'/.test(text);
        return importsRequest && !(NODE_REQUEST_ALLOWED.has(file) && /this\.net\.https?Agent/.test(text));
      })
      .map(({ file }) => file);
    expect(offenders).toEqual([]);
  });
});
