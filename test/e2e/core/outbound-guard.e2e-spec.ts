import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressRefused, GuardedNet } from '@/core/net/guarded-net';
import { TestDnsServer } from '../../support/dns-server';
import { privateInterfaceAddress } from '../../support/net';

function listen(host: string, port = 0): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createHttpServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { connection: 'close', 'content-type': 'text/plain' }).end(host);
  });
  server.on('connection', () => hits.push('connection'));
  return new Promise((resolve) =>
    server.listen(port, host, () => resolve({ server, port: (server.address() as AddressInfo).port, hits })),
  );
}

/**
 * extensions-v3 6.7: the public-address rule is checked inside the connection's own look-up. A name that answers
 * an allowed address first and a private one second (DNS rebinding) never gets a connection to the private one.
 */
describe('Outbound requests through the guarded agent (6.7)', () => {
  const dns = new TestDnsServer();
  const privateAddress = privateInterfaceAddress();
  let allowed: Awaited<ReturnType<typeof listen>>;
  let hidden: Awaited<ReturnType<typeof listen>>;
  let net: GuardedNet;

  beforeAll(async () => {
    await dns.start();
    // Loopback plays the public address (allowed outside production); the same port on the private interface is
    // the internal service a rebinding answer would reach.
    allowed = await listen('127.0.0.1');
    hidden = await listen(privateAddress, allowed.port);
    net = new GuardedNet({ allowLoopback: true, resolver: dns.address });
  });

  afterAll(async () => {
    await net.close();
    allowed.server.close();
    hidden.server.close();
    await dns.stop();
  });

  it('fetch: one look-up per connection; the rebinding answer is refused, the private server never reached', async () => {
    dns.setAddresses('rebind.test', ['127.0.0.1'], [privateAddress]);
    const first = await net.guardedFetch(`http://rebind.test:${allowed.port}/one`);
    expect(await first.text()).toBe('127.0.0.1');
    await expect(net.guardedFetch(`http://rebind.test:${allowed.port}/two`)).rejects.toMatchObject({
      cause: expect.objectContaining({ name: 'AddressRefused' }),
    });
    expect(dns.queries.filter((q) => q === 'rebind.test').length).toBeGreaterThanOrEqual(2);
    expect(allowed.hits).toContain('/one');
    expect(hidden.hits).toEqual([]);
  });

  it('fetch: a literal private address and a name with any private answer are refused', async () => {
    await expect(net.guardedFetch(`http://${privateAddress}:${hidden.port}/x`)).rejects.toMatchObject({
      cause: expect.objectContaining({ name: 'AddressRefused' }),
    });
    dns.setAddresses('mixed.test', ['127.0.0.1', privateAddress]);
    await expect(net.guardedFetch(`http://mixed.test:${allowed.port}/y`)).rejects.toMatchObject({
      cause: expect.objectContaining({ name: 'AddressRefused' }),
    });
    expect(hidden.hits).toEqual([]);
  });

  it('Node agents (for web-push and the like) share the look-up and the literal check', async () => {
    dns.setAddresses('agent.test', [privateAddress]);
    const get = (url: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(url, { agent: net.httpAgent }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.once('error', reject);
        req.end();
      });
    await expect(get(`http://agent.test:${hidden.port}/a`)).rejects.toBeInstanceOf(AddressRefused);
    await expect(get(`http://${privateAddress}:${hidden.port}/b`)).rejects.toBeInstanceOf(AddressRefused);
    expect(await get(`http://localhost:${allowed.port}/c`)).toBe(200);
    expect(hidden.hits).toEqual([]);
  });

  it('production: loopback refused too', async () => {
    const production = new GuardedNet({ allowLoopback: false, resolver: dns.address });
    try {
      await expect(production.guardedFetch(`http://127.0.0.1:${allowed.port}/p`)).rejects.toMatchObject({
        cause: expect.objectContaining({ name: 'AddressRefused' }),
      });
      await expect(production.guardedFetch(`http://localhost:${allowed.port}/p`)).rejects.toMatchObject({
        cause: expect.objectContaining({ name: 'AddressRefused' }),
      });
      expect(allowed.hits).not.toContain('/p');
    } finally {
      await production.close();
    }
  });
});
