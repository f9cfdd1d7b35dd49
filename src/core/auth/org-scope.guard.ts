import { type CanActivate, type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { RouteMetadata } from './route-metadata';
import { ORG_SCOPED, type OrgRole, ROLES, type ScopedRequest, TenancyResolver } from './tenancy';

/** Enforces `@OrgScoped()` and `@Roles()` on `/organizations/{org_id}/...`; runs right after the credential guard. */
@Injectable()
export class OrgScopeGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Optional() @Inject(TenancyResolver) private readonly tenancy: TenancyResolver | null,
  ) {}

  /** `@OrgScoped()` and `@Roles()` of each operation, read once. */
  private readonly scopes = new RouteMetadata((targets) => ({
    orgScoped: this.reflector.getAllAndOverride<boolean | undefined, symbol>(ORG_SCOPED, targets) === true,
    roles: this.reflector.getAllAndOverride<OrgRole[] | undefined, symbol>(ROLES, targets) ?? [],
  }));

  /** Synchronous (no promise) on operations outside organizations. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const scope = this.scopes.of(context);
    if (!scope.orgScoped) return true;
    return this.check(context, scope.roles);
  }

  private async check(context: ExecutionContext, roles: readonly OrgRole[]): Promise<boolean> {
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
    if (roles.length > 0 && !roles.includes(membership.role)) throw ApiError.forbidden();
    req.membership = membership;
    return true;
  }
}
