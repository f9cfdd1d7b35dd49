import {
  applyDecorators,
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { IS_PUBLIC } from '@/core/auth/access.decorators';
import { TenancyResolver } from '@/core/auth/tenancy';
import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';
import { rateLimitHeaders, RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { SCIM_DETAIL, ScimError } from './scim-errors';
import { scimTokenBudget } from './scim.limits';
import type { ScimTokenRow } from './scim-tokens.repository';
import { ScimTokensService } from './scim-tokens.service';

export interface ScimRequest extends Request {
  scimToken?: ScimTokenRow;
}

/**
 * The SCIM routes take only a SCIM token (`Authorization: Bearer svc_scim_...`), checked by `ScimAuthGuard`: the
 * service's credential guard steps aside (no cookie, personal or OAuth token is accepted here), and a SCIM token
 * is refused by that guard everywhere else (its prefix belongs to no credential strategy).
 */
export const ScimTokenAuth = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension('x-scim-token', true));

/**
 * 404 `feature_disabled` with SCIM_ENABLED=false; 401 (with `WWW-Authenticate: Bearer`) without a live SCIM
 * token; 403 while the organization is suspended; 429 past 1 200 requests a minute for the token. Every
 * authenticated request is written to the organization's SCIM activity log when it ends (no bodies).
 */
@Injectable()
export class ScimAuthGuard implements CanActivate {
  private readonly budget: RateLimitPolicy | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tokens: ScimTokensService,
    private readonly limits: RateLimitService,
    @Inject(TenancyResolver) private readonly tenancy: TenancyResolver,
  ) {
    this.budget = config.scim.tokenPerMinute > 0 ? scimTokenBudget(config.scim.tokenPerMinute) : null;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ScimRequest>();
    const res = context.switchToHttp().getResponse<Response & { [SCIM_DETAIL]?: string }>();
    if (!this.config.scim.enabled) throw new ScimError(404, 'feature_disabled: SCIM is switched off here.');
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const token = match ? await this.tokens.authenticate(match[1]) : null;
    if (!token) throw new ScimError(401, 'A valid SCIM token is required (Authorization: Bearer svc_scim_...).');
    req.scimToken = token;
    const started = { method: req.method, path: req.originalUrl.split('?')[0].slice(0, 500) };
    res.on('finish', () => {
      void this.tokens
        .recordActivity(token.organization_id, token.id, {
          ...started,
          status: res.statusCode,
          detail: res[SCIM_DETAIL]?.slice(0, 500) ?? null,
        })
        .catch(() => undefined);
    });
    if (await this.tenancy.isSuspended(token.organization_id)) {
      throw ScimError.forbidden('organization_suspended: This organization is suspended.');
    }
    const state = this.budget ? await this.limits.consume(this.budget, token.id) : null;
    if (state) for (const [name, value] of Object.entries(rateLimitHeaders([state]))) res.setHeader(name, value);
    return true;
  }
}
