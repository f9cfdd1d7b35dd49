import { type CanActivate, type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { ORG_SCOPED, type OrgRole, ROLES, type ScopedRequest, TenancyResolver } from './tenancy';

/** Enforces `@OrgScoped()` and `@Roles()` on `/organizations/{org_id}/...`; runs right after the credential guard. */
@Injectable()
export class OrgScopeGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Optional() @Inject(TenancyResolver) private readonly tenancy: TenancyResolver | null,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (!this.reflector.getAllAndOverride<boolean | undefined>(ORG_SCOPED, targets)) return true;
    if (!this.tenancy) throw new Error('An @OrgScoped() operation needs a TenancyResolver');
    const req = context.switchToHttp().getRequest<ScopedRequest>();
    const credential = req.credential;
    const organizationId = (req.params as Record<string, string | undefined>).org_id;
    if (!credential || !organizationId || !isUuid(organizationId)) throw ApiError.notFound();
    // A bearer token acts in exactly one organization; anywhere else it finds nothing.
    if (credential.organizationId !== null && credential.organizationId !== organizationId.toLowerCase()) {
      throw ApiError.notFound();
    }
    const membership = await this.tenancy.membership(organizationId.toLowerCase(), credential.userId);
    if (!membership) throw ApiError.notFound();
    if (await this.tenancy.isSuspended(membership.organizationId)) {
      throw ApiError.forbidden('This organization is suspended.', 'organization_suspended');
    }
    const roles = this.reflector.getAllAndOverride<OrgRole[] | undefined>(ROLES, targets);
    if (roles?.length && !roles.includes(membership.role)) throw ApiError.forbidden();
    req.membership = membership;
    return true;
  }
}
