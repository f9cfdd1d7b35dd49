import { type CanActivate, type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { BudgetsService } from '@/core/budgets/budgets.service';
import { ApiError } from '@/core/http/api-error';
import { COOKIE } from '@/core/http/cookies';
import {
  IS_PUBLIC,
  MINOR_ACCESS,
  type MinorAccessLevel,
  NOT_WHILE_IMPERSONATING,
  PLATFORM_ROLES,
  READ_OPERATION,
  SESSION_ONLY,
  type SessionOnlyRule,
} from './access.decorators';
import { type AuthenticatedRequest, hasPlatformRole, type PlatformRole } from './credential';
import { authenticateWith, BEARER_PREFIXES, STRATEGY, type StrategyName, strategyRegistered } from './strategies';
import { RouteMetadata } from './route-metadata';
import { GuardianConsentResolver } from './tenancy';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** An operation's access decorators, as the guard reads them. */
interface AccessRules {
  readonly isPublic: boolean;
  readonly sessionOnly: SessionOnlyRule | undefined;
  readonly roles: readonly PlatformRole[];
  readonly readOperation: boolean;
  readonly minorAccess: MinorAccessLevel | undefined;
  readonly notWhileImpersonating: boolean;
}
/** Query parameters that carry credentials by convention (`token` is left out: signed unsubscribe links use it). */
const CREDENTIAL_PARAMS = new Set(['access_token', 'api_key', 'apikey']);

/** A credential parameter, or any value that is one of our bearer tokens. */
function hasTokenInQuery(query: Record<string, unknown>): boolean {
  return Object.entries(query).some(
    ([key, value]) =>
      CREDENTIAL_PARAMS.has(key.toLowerCase()) ||
      (Array.isArray(value) ? value : [value]).some(
        (v) => typeof v === 'string' && BEARER_PREFIXES.some(([prefix]) => v.startsWith(prefix)),
      ),
  );
}

/**
 * Global and deny-by-default. An operation not marked `@Public()` needs a credential: a bearer token
 * (`Authorization: Bearer svc_live_...` or `svc_oat_...`) or the `access_token` cookie, each checked by its
 * passport strategy. Then the platform roles the operation names, that read-only credentials do not write, that
 * browser-session operations get a session and that impersonation sessions stay out of what only the person does.
 */
@Injectable()
export class CredentialGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Optional() @Inject(GuardianConsentResolver) private readonly consent: GuardianConsentResolver | null,
    @Optional() @Inject(BudgetsService) private readonly budgets: BudgetsService | null,
  ) {}

  /** The access rules of each operation, read once. */
  private readonly rules = new RouteMetadata<AccessRules>((targets) => {
    const read = <T>(key: symbol): T | undefined =>
      this.reflector.getAllAndOverride<T | undefined, symbol>(key, targets);
    return {
      isPublic: read<boolean>(IS_PUBLIC) === true,
      sessionOnly: read<SessionOnlyRule>(SESSION_ONLY),
      roles: read<PlatformRole[]>(PLATFORM_ROLES) ?? [],
      readOperation: read<boolean>(READ_OPERATION) === true,
      minorAccess: read<MinorAccessLevel>(MINOR_ACCESS),
      notWhileImpersonating: read<boolean>(NOT_WHILE_IMPERSONATING) === true,
    };
  });

  /** Synchronous on public operations (no credential to look up): no promise per request there. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // Tokens never belong in a URL (they end up in logs, history and Referer headers): refuse them outright.
    if (req.url.includes('?') && hasTokenInQuery(req.query)) {
      throw ApiError.badRequest('token_in_query', 'Send tokens in the Authorization header, never in the URL.');
    }
    const rules = this.rules.of(context);
    if (rules.isPublic) return true;
    return this.authenticate(req, context.switchToHttp().getResponse<Response>(), rules);
  }

  private async authenticate(req: AuthenticatedRequest, res: Response, rules: AccessRules): Promise<boolean> {
    const strategy = rules.sessionOnly === 'unauthorized' ? this.cookieStrategy(req) : this.strategyFor(req);
    const credential = strategy && strategyRegistered(strategy) ? await authenticateWith(strategy, req, res) : null;
    if (!credential) {
      // A refused credential makes an anonymous request: it counts against its address's budget (429 once spent).
      this.budgets?.chargeRefused(req, res);
      throw ApiError.unauthorized();
    }
    req.credential = credential;

    if (rules.roles.length > 0 && !rules.roles.some((role) => hasPlatformRole(credential, role))) {
      throw ApiError.forbidden('This needs a platform role you do not have.');
    }
    if (credential.access === 'read' && WRITE_METHODS.has(req.method) && !rules.readOperation) {
      if (!credential.minor || credential.kind !== 'session' || !rules.minorAccess) {
        throw ApiError.forbidden('This credential is read-only.', 'credential_read_only');
      }
      if (rules.minorAccess === 'with_consent') await this.requireConsent(req, credential.userId);
    }
    if (rules.sessionOnly && credential.kind !== 'session') {
      throw ApiError.forbidden('Only a browser session can do this; tokens cannot.');
    }
    if (credential.impersonatorId && rules.notWhileImpersonating) {
      throw ApiError.forbidden('Not while impersonating: the person does this themselves.', 'impersonation_restricted');
    }
    return true;
  }

  private async requireConsent(req: AuthenticatedRequest, userId: string): Promise<void> {
    const orgId = (req.params as Record<string, string | undefined>).org_id?.toLowerCase() ?? null;
    if (this.consent && (await this.consent.hasConsent(userId, orgId))) return;
    throw ApiError.forbidden('This needs your guardian’s consent first.', 'guardian_consent_required');
  }

  private strategyFor(req: AuthenticatedRequest): StrategyName | null {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header);
      if (!match) return null;
      const token = match[1];
      return BEARER_PREFIXES.find(([prefix]) => token.startsWith(prefix))?.[1] ?? null;
    }
    return this.cookieStrategy(req);
  }

  /** Cookie operations ignore the Authorization header: only the `access_token` cookie can authenticate them. */
  private cookieStrategy(req: AuthenticatedRequest): StrategyName | null {
    return (req.cookies as Record<string, string> | undefined)?.[COOKIE.access] ? STRATEGY.cookieSession : null;
  }
}
