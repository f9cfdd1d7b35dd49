import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '@/core/http/api-error';
import { COOKIE } from '@/core/http/cookies';
import { STEP_UP } from './access.decorators';
import type { AuthenticatedRequest } from './credential';
import { RouteMetadata } from './route-metadata';
import { SignedTokens } from './signed-tokens';

export const STEP_UP_TTL_SECONDS = 10 * 60;

/**
 * `@StepUp()` operations need the `svc_step_up` cookie issued to this very session in the last 10 minutes.
 * Bearer tokens cannot step up: sensitive actions are for the person at the browser.
 */
@Injectable()
export class StepUpGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: SignedTokens,
  ) {}

  /** Whether each operation is `@StepUp()`, read once. */
  private readonly stepUp = new RouteMetadata(
    (targets) => this.reflector.getAllAndOverride<boolean | undefined>(STEP_UP, targets) === true,
  );

  canActivate(context: ExecutionContext): boolean {
    if (!this.stepUp.of(context)) return true;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const credential = req.credential;
    const cookie = (req.cookies as Record<string, string> | undefined)?.[COOKIE.stepUp];
    const claims = cookie ? this.tokens.verify('step_up', cookie) : null;
    if (!credential || credential.kind !== 'session' || !claims || claims.sid !== credential.sessionId) {
      throw ApiError.forbidden('Confirm it is you first (step-up).', 'step_up_required');
    }
    return true;
  }
}
