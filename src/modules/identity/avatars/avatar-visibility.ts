import { Injectable } from '@nestjs/common';
import type { Credential } from '@/core/auth/credential';
import { TenancyResolver } from '@/core/auth/tenancy';
import { UsersService } from '@/modules/identity/users';

/**
 * Who may see a person's avatar: the person, and whoever shares the request's organization with them (the
 * token's organization, or the session's active one; both must be members of it and it must not be suspended).
 */
@Injectable()
export class AvatarVisibility {
  constructor(
    private readonly tenancy: TenancyResolver,
    private readonly users: UsersService,
  ) {}

  async canSee(viewer: Credential, targetUserId: string): Promise<boolean> {
    if (viewer.userId === targetUserId) return true;
    const organizationId =
      viewer.organizationId ?? (await this.users.findById(viewer.userId))?.lastOrganizationId ?? null;
    if (!organizationId) return false;
    const [mine, theirs] = await Promise.all([
      this.tenancy.membership(organizationId, viewer.userId),
      this.tenancy.membership(organizationId, targetUserId),
    ]);
    return mine !== null && theirs !== null && !(await this.tenancy.isSuspended(organizationId));
  }
}
