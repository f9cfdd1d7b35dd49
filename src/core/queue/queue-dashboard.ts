import { createBullBoard } from '@bull-board/api';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { getQueueToken } from '@nestjs/bull';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Queue } from 'bull';
import type { NextFunction, Request, Response } from 'express';
import { hasPlatformRole } from '@/core/auth/credential';
import { optionalCookieSession } from '@/core/auth/strategies';
import { sendErrorEnvelope } from '@/core/http/error-envelope';
import { requestIdOf } from '@/core/http/request-id';
import { QUEUE_NAMES } from './queues';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * bull-board at `/admin/queues`, for platform_admin browser sessions only (the `access_token` cookie; a bearer
 * token never opens it, impersonation neither): every Bull queue with its waiting, delayed, active, completed and
 * failed jobs, retry and clean. The outbox rows not yet dispatched (the `jobs` table) are listed by
 * `GET /api/v1/admin/jobs`, which also works without Redis. Without Redis (jobs in-process) there are no Bull
 * queues to show: the dashboard answers 404.
 */
export function mountQueueDashboard(app: NestExpressApplication, redisConfigured: boolean): void {
  const gate = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const credential = await optionalCookieSession(req, res);
    const id = requestIdOf(req);
    if (!credential) return sendErrorEnvelope(res, 401, 'unauthorized', 'Sign in as a platform admin.', id);
    if (credential.impersonatorId) {
      return sendErrorEnvelope(res, 403, 'impersonation_restricted', 'Not while impersonating.', id);
    }
    if (!hasPlatformRole(credential, 'platform_admin')) {
      return sendErrorEnvelope(res, 403, 'forbidden', 'This needs a platform role you do not have.', id);
    }
    if (!redisConfigured) {
      return sendErrorEnvelope(res, 404, 'not_found', 'No Redis: jobs run in-process; see GET /api/v1/admin/jobs.', id);
    }
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
  const handlers: ((req: Request, res: Response, next: NextFunction) => void)[] = [
    (req, res, next) => void gate(req, res, next).catch(next),
  ];
  if (redisConfigured) {
    const serverAdapter = new ExpressAdapter().setBasePath(QUEUE_DASHBOARD_PATH);
    createBullBoard({
      queues: QUEUE_NAMES.map((name) => new BullAdapter(app.get<Queue>(getQueueToken(name), { strict: false }))),
      serverAdapter,
      options: { uiConfig: { boardTitle: 'Learning Platform queues' } },
    });
    handlers.push(serverAdapter.getRouter() as (req: Request, res: Response, next: NextFunction) => void);
  }
  app.use(QUEUE_DASHBOARD_PATH, ...handlers);
}
