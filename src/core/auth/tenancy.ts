import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiError } from '@/core/http/api-error';
import { accessDecorator } from './access.decorators';
import type { AuthenticatedRequest } from './credential';

export type OrgRole = 'owner' | 'admin' | 'teacher' | 'student';
/** Highest first. */
export const ORG_ROLES: readonly OrgRole[] = ['owner', 'admin', 'teacher', 'student'];
export const ADMIN_ROLES: readonly OrgRole[] = ['owner', 'admin'];
export const STAFF_ROLES: readonly OrgRole[] = ['owner', 'admin', 'teacher'];

export interface Membership {
  readonly organizationId: string;
  readonly userId: string;
  readonly role: OrgRole;
}

/**
 * What the org-scope guard needs to know, answered by the organizations area (the core never depends on an
 * area). Both answers are on the hot path of every scoped request: implementations cache them.
 */
export abstract class TenancyResolver {
  abstract membership(organizationId: string, userId: string): Promise<Membership | null>;
  abstract isSuspended(organizationId: string): Promise<boolean>;
}

/**
 * Whether a minor has guardian consent (extensions-v2 17.5): by the guardian's email, valid everywhere, or by the
 * attestation of `organizationId` (the path's organization, or the token's; null on personal routes, where any
 * attestation counts). Answered by the privacy area; without it, nobody has consent.
 */
export abstract class GuardianConsentResolver {
  abstract hasConsent(userId: string, organizationId: string | null): Promise<boolean>;
}

export const ORG_SCOPED = Symbol('ORG_SCOPED');
export const ROLES = Symbol('ROLES');

export interface ScopedRequest extends AuthenticatedRequest {
  membership?: Membership;
}

/**
 * The path's `{org_id}` must be an organization the caller belongs to (404 otherwise, whatever their role
 * elsewhere; a token bound to another organization is 404 too) and that is not suspended (403
 * `organization_suspended`).
 */
export const OrgScoped = (): MethodDecorator & ClassDecorator =>
  accessDecorator(ORG_SCOPED, true, 'x-org-scoped', true);

/** The caller's role in the path's organization must be one of these (403 `forbidden` otherwise). */
export const Roles = (...roles: OrgRole[]): MethodDecorator & ClassDecorator =>
  accessDecorator(ROLES, roles, 'x-roles', roles);

/** The caller's membership in the path's organization (on `@OrgScoped()` operations). */
export const CurrentMembership = createParamDecorator((_data: unknown, ctx: ExecutionContext): Membership => {
  const membership = ctx.switchToHttp().getRequest<ScopedRequest>().membership;
  if (!membership) throw ApiError.notFound();
  return membership;
});

export function isAdmin(role: OrgRole): boolean {
  return ADMIN_ROLES.includes(role);
}
