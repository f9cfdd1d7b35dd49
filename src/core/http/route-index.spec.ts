import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import fc from 'fast-check';
import { type IndexableRouter, installRouteIndex, prefixKey } from './route-index';

// Routes of the shapes the application registers: keyed ones, ones with a parameter or a wildcard among the first
// three segments, short ones, one registered in capitals and one after the keyed ones under the same prefix.
const ROUTES = [
  '/api/v1/lti/contexts/:context/lineitems/:item/scores',
  '/api/v1/lti/token',
  '/api/v1/organizations/:org/courses',
  '/api/v1/organizations/:org',
  '/api/v1/me',
  '/api/v1/:any/thing',
  '/api/v1/a.b/x',
  '/API/V1/Caps/x',
  '/version',
  '/scim/v2/{*path}',
  '/api/v1/lti/:anything',
];

const SEGMENTS = [
  'api',
  'API',
  'v1',
  'V1',
  'lti',
  'Lti',
  'l%74i',
  'organizations',
  'contexts',
  'lineitems',
  'scores',
  'token',
  'courses',
  'me',
  'thing',
  'a.b',
  'caps',
  'x',
  'scim',
  'v2',
  'version',
  '',
  '.',
  '%2F',
  '42',
];

function appWith(indexed: boolean): { app: express.Express; matched: string[] } {
  const app = express();
  const matched: string[] = [];
  app.use((_req, res, next) => {
    res.setHeader('x-seen', '1');
    next();
  });
  ROUTES.forEach((path, i) => {
    app.all(path, (req, res) => {
      res.json({ route: i, params: req.params, method: req.method });
    });
  });
  app.use((_req, res) => {
    res.status(404).json({ route: null });
  });
  const router = (app as unknown as { router: IndexableRouter }).router;
  // Records which routes' patterns were tried (by their path), to see what the index spares.
  for (const layer of router.stack as (IndexableRouter['stack'][number] & { match: (p: string) => unknown })[]) {
    const path = layer.route?.path;
    if (typeof path !== 'string') continue;
    const match = layer.match.bind(layer);
    layer.match = (p: string) => {
      matched.push(path);
      return match(p);
    };
  }
  if (indexed) installRouteIndex(router);
  return { app, matched };
}

async function listen(app: express.Express): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** Sends the path exactly as given (no URL normalization) and answers status and body. */
function send(server: Server, method: string, path: string): Promise<string> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(`${res.statusCode} ${String(res.headers['x-seen'] ?? '-')} ${body}`));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('route index', () => {
  let plain: Server;
  let indexed: Server;
  let indexedMatched: string[];

  beforeAll(async () => {
    plain = await listen(appWith(false).app);
    const built = appWith(true);
    indexedMatched = built.matched;
    indexed = await listen(built.app);
  });

  afterAll(async () => {
    await new Promise((r) => plain.close(r));
    await new Promise((r) => indexed.close(r));
  });

  it('keys a path by its first three plain segments when another follows', () => {
    expect(prefixKey('/api/v1/lti/contexts/1/scores')).toBe('api/v1/lti');
    expect(prefixKey('/API/V1/Lti/token')).toBe('api/v1/lti');
    expect(prefixKey('/api/v1/lti/')).toBe('api/v1/lti');
    expect(prefixKey('/api/v1/lti')).toBeNull();
    expect(prefixKey('/api/v1/me')).toBeNull();
    expect(prefixKey('/api/v1/:org/courses')).toBeNull();
    expect(prefixKey('/api/v1/l%74i/token')).toBeNull();
    expect(prefixKey('/api//lti/token')).toBeNull();
    expect(prefixKey('http://host/api/v1/lti/token')).toBeNull();
    expect(prefixKey('/scim/v2/{*path}')).toBeNull();
  });

  it('a keyed request tries only the middleware, the unkeyed routes and its own key’s routes', async () => {
    indexedMatched.length = 0;
    expect(await send(indexed, 'POST', '/api/v1/lti/contexts/c1/lineitems/i1/scores')).toBe(
      '200 1 {"route":0,"params":{"context":"c1","item":"i1"},"method":"POST"}',
    );
    expect(indexedMatched).toEqual([ROUTES[0]]);
    indexedMatched.length = 0;
    // The last route of the key is reached past the routes of other keys without trying them.
    expect(await send(indexed, 'GET', '/api/v1/lti/other')).toBe(
      '200 1 {"route":10,"params":{"anything":"other"},"method":"GET"}',
    );
    expect(indexedMatched).toEqual([ROUTES[0], ROUTES[1], ROUTES[4], ROUTES[5], ROUTES[8], ROUTES[9], ROUTES[10]]);
  });

  it('answers every request path as the router without the index does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'OPTIONS', 'HEAD'),
        fc.oneof(
          // Any path of known segments, or a route's own path with its parameters filled and its case changed.
          fc.array(fc.constantFrom(...SEGMENTS), { minLength: 0, maxLength: 8 }).map((s) => `/${s.join('/')}`),
          fc
            .tuple(fc.constantFrom(...ROUTES), fc.array(fc.constantFrom(...SEGMENTS), { minLength: 3, maxLength: 3 }))
            .chain(([route, fill]) =>
              fc.boolean().map((upper) => {
                const path = route.replace(/\{\*path\}|:[a-z]+/g, () => fill.shift() || 'x');
                return upper ? path.toUpperCase() : path;
              }),
            ),
        ),
        fc.constantFrom('', '/', '?q=1', '/?a=/b/c'),
        async (method, base, tail) => {
          const path = `${base}${tail}`;
          expect(await send(indexed, method, path)).toBe(await send(plain, method, path));
        },
      ),
      { numRuns: 400 },
    );
  });
});
