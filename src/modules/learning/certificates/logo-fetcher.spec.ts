import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GuardedNet } from '@/core/net/guarded-net';
import { DEFAULT_LOGO_TIMEOUT_MS, imageFormat, LOGO_MAX_BYTES, LogoFetcher } from './logo-fetcher';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(32)]);

describe('LogoFetcher', () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];
  const nets = { test: new GuardedNet({ allowLoopback: true }), production: new GuardedNet({ allowLoopback: false }) };
  const fetcher = (nodeEnv: 'test' | 'production', timeoutMs = DEFAULT_LOGO_TIMEOUT_MS): LogoFetcher =>
    new LogoFetcher(nets[nodeEnv], timeoutMs);

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/a.png') res.end(PNG);
      else if (req.url === '/a.jpg') res.end(JPEG);
      else if (req.url === '/exact') res.end(Buffer.concat([PNG, Buffer.alloc(LOGO_MAX_BYTES - PNG.length)]));
      else if (req.url === '/over') res.end(Buffer.concat([PNG, Buffer.alloc(LOGO_MAX_BYTES - PNG.length + 1)]));
      else if (req.url === '/gif') res.end(Buffer.from('GIF89a...........'));
      else if (req.url?.startsWith('/loop')) res.writeHead(302, { location: `/loop${hits.length}` }).end();
      else if (req.url === '/never')
        return; // holds the request open: only the timeout ends it
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all([nets.test.close(), nets.production.close()]);
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  it('recognizes PNG and JPEG by their signatures only', () => {
    expect(imageFormat(PNG)).toBe('png');
    expect(imageFormat(JPEG)).toBe('jpeg');
    expect(imageFormat(Buffer.from('<svg/>'))).toBeNull();
    expect(imageFormat(Buffer.alloc(0))).toBeNull();
  });

  it('fetches PNG and JPEG up to exactly 1 MiB; one byte more, another format or a 404 is no logo', async () => {
    const f = fetcher('test');
    expect(await f.fetch(`${base}/a.png`)).toEqual({ format: 'png', data: PNG });
    expect((await f.fetch(`${base}/a.jpg`))?.format).toBe('jpeg');
    expect((await f.fetch(`${base}/exact`))?.data.length).toBe(LOGO_MAX_BYTES);
    expect(await f.fetch(`${base}/over`)).toBeNull();
    expect(await f.fetch(`${base}/gif`)).toBeNull();
    expect(await f.fetch(`${base}/missing`)).toBeNull();
  });

  it('gives up when the whole fetch takes longer than its timeout', async () => {
    expect(await fetcher('test', 50).fetch(`${base}/never`)).toBeNull();
    // The same timeout leaves room for a prompt answer.
    expect((await fetcher('test', 1_000).fetch(`${base}/a.png`))?.format).toBe('png');
  });

  it('gives up after 3 redirects', async () => {
    const before = hits.length;
    expect(await fetcher('test').fetch(`${base}/loop`)).toBeNull();
    expect(hits.length - before).toBe(4);
  });

  it('in production, refuses loopback without connecting, by literal address or by name', async () => {
    const f = fetcher('production');
    const before = hits.length;
    const port = (server.address() as AddressInfo).port;
    for (const url of [`${base}/a.png`, `http://localhost:${port}/a.png`, `http://[::ffff:127.0.0.1]:${port}/a.png`]) {
      expect(await f.fetch(url)).toBeNull();
    }
    expect(hits.length).toBe(before);
  });

  it('refuses schemes other than http(s)', async () => {
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/a.png',
      'data:image/png;base64,iVBORw0KGgo=',
      'nonsense',
    ]) {
      expect(await fetcher('test').fetch(url)).toBeNull();
    }
  });
});
