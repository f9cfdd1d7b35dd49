import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { inSeries } from './in-series';
import { COMPRESS_MIN_BYTES, installResponseEncoding } from './response-encoding';

/** Routes answering through `res.json` / `res.send` as the application's handlers and filters do. */
function app(encoded: boolean): Express {
  const a = express();
  a.disable('x-powered-by');
  a.set('etag', false);
  if (encoded) installResponseEncoding(a);
  a.get('/small', (_req, res) => void res.json({ version: '1.0.0', note: 'é ü 日本' }));
  a.get('/created', (_req, res) => void res.status(201).json({ id: 1 }));
  a.get('/typed', (_req, res) => void res.type('application/scim+json').json({ schemas: [] }));
  a.get('/string', (_req, res) => void res.send('plain'));
  a.get('/undefined', (_req, res) => void res.json(undefined));
  a.get('/dated', (_req, res) => void res.setHeader('Last-Modified', 'Sun, 01 Nov 2026 00:00:00 GMT').json({ a: 1 }));
  a.get('/large', (_req, res) => void res.json({ text: 'x'.repeat(COMPRESS_MIN_BYTES) }));
  return a;
}

/** What a client sees: status, headers (Date dropped) in order, body bytes. */
async function answer(a: Express, method: 'get' | 'head', path: string, headers: Record<string, string> = {}) {
  const req = request(a)[method](path);
  for (const [k, v] of Object.entries(headers)) req.set(k, v);
  const res = await req.buffer(true).parse((r, done) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => done(null, Buffer.concat(chunks)));
  });
  const raw = (res as unknown as { res: { rawHeaders: string[] } }).res.rawHeaders;
  const pairs: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() !== 'date') pairs.push(`${raw[i]}: ${raw[i + 1]}`);
  return { status: res.status, headers: pairs, body: (res.body as Buffer).toString('hex') };
}

describe('installResponseEncoding: answers below the compression size sent as Express sends them', () => {
  const cases: [string, 'get' | 'head', Record<string, string>][] = [
    ['/small', 'get', {}],
    ['/small', 'head', {}],
    ['/created', 'get', {}],
    ['/typed', 'get', {}],
    ['/string', 'get', {}],
    ['/undefined', 'get', {}],
    ['/dated', 'get', {}],
    ['/dated', 'get', { 'If-Modified-Since': 'Mon, 02 Nov 2026 00:00:00 GMT' }],
  ];
  it.each(cases)('%s (%s %j): same status, headers in the same order and bytes', async (path, method, headers) => {
    expect(await answer(app(true), method, path, headers)).toEqual(await answer(app(false), method, path, headers));
  });

  it('a large JSON answer is still compressed when the client accepts it', async () => {
    const res = await request(app(true)).get('/large').set('Accept-Encoding', 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
  });
});

describe('inSeries', () => {
  const mark =
    (name: string) =>
    (_req: Request, res: Response, next: NextFunction): void => {
      res.append('X-Steps', name);
      next();
    };

  it('runs the steps in order, then the next layer', async () => {
    const a = express();
    a.use(inSeries(mark('a'), mark('b'), mark('c')));
    a.get('/', (_req, res) => void res.send('ok'));
    const res = await request(a).get('/').expect(200);
    expect(res.headers['x-steps']).toBe('a, b, c');
  });

  it('stops at an error passed to next or thrown, and hands it to the error handlers', async () => {
    for (const failing of [
      (_req: Request, _res: Response, next: NextFunction) => next(new Error('passed')),
      () => {
        throw new Error('thrown');
      },
    ]) {
      const a = express();
      a.use(inSeries(mark('a'), failing, mark('never')));
      a.get('/', (_req, res) => void res.send('ok'));
      a.use((err: Error, _req: Request, res: Response, _next: NextFunction) => void res.status(500).send(err.message));
      const res = await request(a).get('/').expect(500);
      expect(res.headers['x-steps']).toBe('a');
      expect(['passed', 'thrown']).toContain(res.text);
    }
  });
});
