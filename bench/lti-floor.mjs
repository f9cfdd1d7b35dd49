// node bench/lti-floor.mjs: the least a launch can cost on one instance, beside the service's own figure.
// A bare node:http server in its own process (the same Node binary, one event loop like one service instance) answers
// the launch's two platform steps with nothing but their irreducible work: GET /launch answers a 302 to /authorize;
// GET /authorize signs an LTI id_token (RS256, RSA 2048, the claims of a real launch, jose as the service uses) and
// answers the auto-post form. No framework, no session, no database, no Redis. The client runs the launches as
// bench/lti.mjs does (BENCH_LTI_LAUNCHES at BENCH_LTI_CONCURRENCY, p50/p99 of the pair) and also one at a time.
// If this floor's p99 at 50 concurrent is above extensions-v3's 20 ms, no implementation of the service can meet it
// on this machine: the queue in front of the signature alone is longer.
import { fork } from 'node:child_process';
import { createServer, request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { freePort, stop } from './lib.mjs';

const LAUNCHES = Number(process.env.BENCH_LTI_LAUNCHES ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_LTI_CONCURRENCY ?? 50);

if (process.env.LTI_FLOOR_SERVER) {
  // The server side.
  const { generateKeyPair, SignJWT } = await import('jose');
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
  let n = 0;
  const server = createServer(async (req, res) => {
    if (req.url.startsWith('/launch')) {
      res.writeHead(302, { Location: `/authorize?state=${++n}`, 'Content-Length': 0 });
      return res.end();
    }
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({
      nonce: `nonce-${n}`,
      'https://purl.imsglobal.org/spec/lti/claim/message_type': 'LtiResourceLinkRequest',
      'https://purl.imsglobal.org/spec/lti/claim/version': '1.3.0',
      'https://purl.imsglobal.org/spec/lti/claim/deployment_id': '0f3c5e4e-6d5c-4a43-9b7f-7d3a3c1c9e11',
      'https://purl.imsglobal.org/spec/lti/claim/target_link_uri': 'https://tool.example/launch',
      'https://purl.imsglobal.org/spec/lti/claim/resource_link': { id: 'a7c3b1f2-0d4e-4c55-8f0a-2f1e9b0c7d61' },
      'https://purl.imsglobal.org/spec/lti/claim/roles': ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
      'https://purl.imsglobal.org/spec/lti/claim/context': { id: 'c1', label: 'Course', title: 'A course' },
      'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint': {
        scope: ['https://purl.imsglobal.org/spec/lti-ags/scope/score'],
        lineitem: 'https://platform.example/api/v1/lti/courses/c1/lineitems/l1',
      },
      name: 'A Learner',
      email: 'learner@example.test',
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'JWT' })
      .setIssuer('https://platform.example')
      .setSubject('4b8e2f1a-8c1d-4e6f-9a0b-3c2d1e0f9a8b')
      .setAudience('client-1')
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(privateKey);
    const body =
      `<!doctype html><form method="post" action="https://tool.example/launch">` +
      `<input type="hidden" name="id_token" value="${jwt}"><input type="hidden" name="state" value="s"></form>`;
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  const port = await freePort();
  const child = fork(fileURLToPath(import.meta.url), {
    env: { ...process.env, LTI_FLOOR_SERVER: '1', PORT: String(port) },
    stdio: 'inherit',
  });
  await new Promise((resolve) => child.once('message', resolve));
  const { Agent } = await import('node:http');
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const get = (path) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      req.on('error', reject);
      req.end();
    });
  const launch = async () => {
    const s1 = await get('/launch');
    const s2 = await get('/authorize');
    if (s1 !== 302 || s2 !== 200) throw new Error(`unexpected ${s1} ${s2}`);
  };
  const run = async (total, concurrency) => {
    const times = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          next++;
          const t0 = performance.now();
          await launch();
          times.push(performance.now() - t0);
        }
      }),
    );
    return times.sort((a, b) => a - b);
  };
  const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))].toFixed(1);
  await run(200, CONCURRENCY); // warm-up
  const t0 = performance.now();
  const loaded = await run(LAUNCHES, CONCURRENCY);
  const seconds = (performance.now() - t0) / 1000;
  const single = await run(Math.min(500, LAUNCHES), 1);
  console.log(
    `Node ${process.version}, ${availableParallelism()} cores, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} at the end`,
  );
  console.log(
    `floor (bare node:http, 302 + RS256-signed id_token form), ${LAUNCHES} launches at ${CONCURRENCY} concurrent: ` +
      `p50 ${q(loaded, 0.5)} ms, p99 ${q(loaded, 0.99)} ms, ${(LAUNCHES / seconds).toFixed(0)} launches/s`,
  );
  console.log(`floor, one launch at a time: p50 ${q(single, 0.5)} ms, p99 ${q(single, 0.99)} ms`);
  await stop(child);
  agent.destroy();
}
