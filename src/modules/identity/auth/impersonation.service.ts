import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import { ApiError } from '@/core/http/api-error';
import type { ClientInfo } from '@/core/http/client-info';
import type { CookieChange } from '@/core/http/cookies';
import { UsersService } from '@/modules/identity/users';
import { SessionService } from './session.service';

export const IMPERSONATION_TTL_SECONDS = 30 * 60;

export interface ImpersonationStatus {
  active: boolean;
  impersonator_id: string | null;
  expires_at: string | null;
}

/**
 * A platform admin acting as a person, for support: a separate, marked session of that person that ends after
 * 30 minutes and cannot change email, two-factor or tokens. Start and end are audited.
 */
@Injectable()
export class ImpersonationService {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionService,
    private readonly audit: AuditService,
  ) {}

  /** Opens the marked session; its cookies replace the admin's in this browser. */
  async start(
    admin: Credential,
    targetUserId: string,
    client: ClientInfo,
  ): Promise<{ status: ImpersonationStatus; cookies: readonly CookieChange[] }> {
    if (targetUserId === admin.userId)
      throw ApiError.unprocessable('validation_error', 'You cannot impersonate yourself.', 'user_id');
    const target = await this.users.findById(targetUserId);
    if (!target) throw ApiError.notFound();
    if (target.platformRoles.includes('platform_admin'))
      throw ApiError.forbidden('Platform admins cannot be impersonated.');
    const { value: session, cookies } = await this.sessions.open(target, client, {
      impersonatorId: admin.userId,
      impersonationTtlSeconds: IMPERSONATION_TTL_SECONDS,
    });
    await this.audit.record({
      action: 'user.impersonation_started',
      actorId: admin.userId,
      organizationId: null,
      targetType: 'user',
      targetId: target.id,
      ip: client.ip,
      metadata: { session_id: session.id, ttl_seconds: IMPERSONATION_TTL_SECONDS },
    });
    return {
      status: {
        active: true,
        impersonator_id: admin.userId,
        expires_at: session.impersonation_expires_at!.toISOString(),
      },
      cookies,
    };
  }

  async status(credential: Credential): Promise<ImpersonationStatus> {
    if (!credential.impersonatorId || !credential.sessionId)
      return { active: false, impersonator_id: null, expires_at: null };
    const session = await this.sessions.find(credential.sessionId);
    return {
      active: true,
      impersonator_id: credential.impersonatorId,
      expires_at: session?.impersonation_expires_at?.toISOString() ?? null,
    };
  }

  /** Ends the impersonation of this session, if it is one; answers the cookies to clear. Idempotent. */
  async end(credential: Credential, ip: string | undefined): Promise<readonly CookieChange[]> {
    if (!credential.impersonatorId || !credential.sessionId) return [];
    await this.sessions.revoke(credential.sessionId, credential.userId, 'impersonation_ended');
    await this.audit.record({
      action: 'user.impersonation_ended',
      actorId: credential.impersonatorId,
      organizationId: null,
      targetType: 'user',
      targetId: credential.userId,
      ip,
      metadata: { session_id: credential.sessionId },
    });
    return this.sessions.endedCookies();
  }
}
