import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { takeRequestId } from './request-id';

/** The liveness answer, shared with the documented controller route. */
export const HEALTH_BODY = JSON.stringify({ status: 'ok' });

/**
 * Answers `GET /health` before Express: a liveness probe needs no routing, cookies, CORS, body parsing, guards
 * or request log, and is polled constantly by load balancers. Same body and id header as every response;
 * measured in bench/README.md. Everything else goes to the application unchanged.
 */
export function installHealthFastPath(server: Server): void {
  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (listeners.length !== 1) throw new Error('Expected exactly one request listener (the Express application)');
  const app = listeners[0];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && req.url === '/health') {
      res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(HEALTH_BODY),
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'X-Request-Id': takeRequestId(req.headers['x-request-id']),
      });
      res.end(req.method === 'HEAD' ? undefined : HEALTH_BODY);
      return;
    }
    app(req, res);
  });
}
