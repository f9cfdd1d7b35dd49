// An integrator's endpoint for bench/webhooks.mjs: answers 200 to every POST, optionally verifying each Standard
// Webhooks signature (BENCH_VERIFY=1 with WEBHOOK_SECRETS, comma-separated), and reports its count over IPC.
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const secrets = (process.env.WEBHOOK_SECRETS ?? '').split(',').filter(Boolean);
const verifiers = secrets.map((s) => new Webhook(s));
let received = 0;
let invalid = 0;
const ids = new Set();

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'POST') {
      received++;
      if (verifiers.length > 0 && req.url !== '/ceiling') {
        const body = Buffer.concat(chunks);
        const headers = {
          'webhook-id': req.headers['webhook-id'],
          'webhook-timestamp': req.headers['webhook-timestamp'],
          'webhook-signature': req.headers['webhook-signature'],
        };
        const ok = verifiers.some((v) => {
          try {
            v.verify(body, headers);
            return true;
          } catch {
            return false;
          }
        });
        if (!ok) invalid++;
        ids.add(`${req.url}:${headers['webhook-id']}`);
      }
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.({ ready: true }));
process.on('message', (m) => {
  if (m === 'count') process.send?.({ received, invalid, distinct: ids.size });
  if (m === 'reset') {
    received = 0;
    invalid = 0;
    ids.clear();
    process.send?.({ reset: true });
  }
});
