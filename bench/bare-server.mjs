// The baseline: a bare node:http server answering BENCH_BODY (bench/run.mjs passes the bytes the service's /version
// answers), by default what the service's /health answers.
import { createServer } from 'node:http';

const body = process.env.BENCH_BODY ?? JSON.stringify({ status: 'ok' });
const server = createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
