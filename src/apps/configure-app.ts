import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import cookieParser from 'cookie-parser';
import type { NextFunction, Request, Response } from 'express';
import cors from 'cors';
import type { AppConfig } from '@/config/app-config';
import { buildInfo } from '@/core/build-info';
import { sendErrorEnvelope } from '@/core/http/error-envelope';
import { resolveError } from '@/core/http/exception.filter';
import { AppLogger } from '@/core/logging/logger';
import { MetricsService } from '@/core/metrics/metrics.service';
import { mountQueueDashboard } from '@/core/queue/queue-dashboard';
import { RealtimeIoAdapter } from '@/core/realtime/realtime.adapter';
import { Realtime } from '@/core/realtime/realtime.service';
import { observeRequests } from '@/core/logging/request-logging';
import { installHealthFastPath } from '@/core/http/health-fast-path';
import { type IndexableRouter, installRouteIndex } from '@/core/http/route-index';
import {
  isOAuthProtocolPath,
  isScimProtocolPath,
  sendOAuthProtocolError,
  sendScimProtocolError,
} from '@/core/http/protocol-errors';
import { inSeries } from '@/core/http/in-series';
import { requestBody } from '@/core/http/request-body';
import { requestIdOf } from '@/core/http/request-id';
import { configureKeepAlive, installResponseEncoding } from '@/core/http/response-encoding';
import { securityHeaders } from '@/core/http/security-headers';
import { buildOpenApiDocument } from '@/core/http/swagger';

export const API_PREFIX = 'api/v1';
/** Routes outside the `/api/v1` prefix. */
const UNPREFIXED = ['health', 'ready', 'version', 'metrics', '.well-known/{*path}', 'scim/v2', 'scim/v2/{*path}'];

export const JSON_BODY_LIMIT = '1mb';
const OPEN_CORS_PATHS = /^\/(\.well-known\/|api\/v1\/oauth\/(token|register|revoke)$)/;

/**
 * Everything the HTTP layer needs, in order, then `init`: used by main.ts and by the e2e test factory, so tests
 * run the exact production stack.
 */
export async function prepareApp(app: NestExpressApplication, config: AppConfig): Promise<void> {
  app.useLogger(app.get(AppLogger));
  configureApp(app, config);
  // Socket.IO namespaces (gateways) share the HTTP server, at /api/v1/socket.io.
  app.useWebSocketAdapter(new RealtimeIoAdapter(app, app.get(Realtime)));
  await app.init();
  // After the routes: a request for an operation walks Express's layers in order (a path match per layer), and the
  // documentation's nine routes are asked for rarely (bench/README.md, pipeline3).
  serveDocs(app, config);
  installHealthFastPath(app.getHttpServer());
  configureKeepAlive(app.getHttpServer());
  // Nest's own 404 handler covers the /api/v1 prefix only; anything else unknown ends here, in the envelope.
  app.use((req: Request, res: Response) =>
    isScimProtocolPath(req.path)
      ? sendScimProtocolError(res, 404, undefined, 'Not found.')
      : sendErrorEnvelope(res, 404, 'not_found', 'Not found.', requestIdOf(req)),
  );
  // Each request tries only the routes that can match its path (route-index.ts); the same layer answers.
  installRouteIndex((app.getHttpAdapter().getInstance() as unknown as { router: IndexableRouter }).router);
}

function configureApp(app: NestExpressApplication, config: AppConfig): void {
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  app.set('etag', false);
  // ETags only on the reads marked @Revalidated(); large JSON answers compressed (response-encoding.ts).
  installResponseEncoding(app.getHttpAdapter().getInstance());
  const corsMiddleware = cors({
    origin: [...config.corsOrigins],
    credentials: true,
    exposedHeaders: [
      'X-Request-Id',
      'Retry-After',
      'RateLimit',
      'RateLimit-Policy',
      'X-AI-Quota',
      'ETag',
      'WWW-Authenticate',
      'Content-Disposition',
    ],
    maxAge: 600,
  });
  // The OAuth protocol endpoints and discovery documents are called by third-party tools from any origin and never
  // with cookies: any origin, no credentials.
  const openCors = cors({ origin: '*', credentials: false, maxAge: 600, exposedHeaders: ['WWW-Authenticate'] });
  // Requests without an Origin (servers, scripts, probes) need no CORS work, only the Vary that keeps caches honest.
  const crossOrigin = (req: Request, res: Response, next: NextFunction): void => {
    if (req.headers.origin === undefined) {
      res.setHeader('Vary', 'Origin');
      next();
    } else if (OPEN_CORS_PATHS.test(req.path)) {
      openCors(req, res, next);
    } else {
      corsMiddleware(req, res, next);
    }
  };
  // What every request goes through first, in this order, as one Express layer (measured in bench/README.md,
  // pipeline3): the request id, log context, metric and access log line (one clock read at each end); helmet's
  // headers; CORS; cookies.
  app.use(
    inSeries(
      observeRequests(app.get(AppLogger).access, app.get(MetricsService)),
      securityHeaders({
        // The API answers JSON; the few HTML pages (docs, consent) set their own policy where they need more.
        crossOriginResourcePolicy: { policy: 'same-site' },
        hsts: config.cookieSecure ? undefined : false,
      }),
      crossOrigin,
      cookieParser(),
    ),
  );
  mountQueueDashboard(app, config.redis.url !== null);
  // Signed webhooks need their bytes as sent: read raw first (the JSON parser then skips them); then NUL characters.
  app.use(requestBody({ jsonLimit: JSON_BODY_LIMIT, formLimit: '100kb' }));
  // Errors before Nest routing (malformed or too large bodies, NUL characters) are answered here: with the envelope,
  // or on the OAuth protocol endpoints with the RFC body their clients read.
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const r = resolveError(err);
    if (isOAuthProtocolPath(req.path)) {
      const about = r.details?.map((d) => `${d.field} ${d.message}`).join('; ');
      sendOAuthProtocolError(res, r.status === 413 ? 413 : 400, 'invalid_request', about || r.message);
      return;
    }
    if (isScimProtocolPath(req.path)) {
      // RFC 7644 has no 422: a refused value before routing (a NUL character) is 400 invalidValue.
      const status = r.status === 422 ? 400 : r.status;
      const scimType = r.status === 400 ? 'invalidSyntax' : r.status === 422 ? 'invalidValue' : undefined;
      sendScimProtocolError(res, status, scimType, r.message, r.headers);
      return;
    }
    sendErrorEnvelope(res, r.status, r.code, r.message, requestIdOf(req), r.details, r.headers);
  });
  app.setGlobalPrefix(API_PREFIX, { exclude: UNPREFIXED });
}

/** Swagger UI at `/docs` and the description at `/docs-json` (and `/docs-yaml`). */
function serveDocs(app: NestExpressApplication, config: AppConfig): void {
  // The description is built once, when first asked for; outside tests also now, so a broken description stops the
  // start instead of the first reader (tests boot ~200 apps and read it in a few suites: ~0.6 s per boot saved).
  let document: OpenAPIObject | undefined;
  const describe = (): OpenAPIObject => (document ??= buildOpenApiDocument(app, config, buildInfo().version));
  if (config.nodeEnv !== 'test') describe();
  SwaggerModule.setup('docs', app, describe, {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Learning Platform API',
    swaggerOptions: { persistAuthorization: false, withCredentials: true },
  });
}
