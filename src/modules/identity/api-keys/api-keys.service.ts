import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { bearerCredential, type Credential } from '@/core/auth/credential';
import { formatToken, hasValidChecksum, PERSONAL_TOKEN } from '@/core/auth/token-format';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import { type ApiKeyRow, ApiKeysRepository } from './api-keys.repository';
import type { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

const DAY_MS = 24 * 60 * 60 * 1000;
const TOUCH_EVERY_MS = 60_000;

@Injectable()
export class ApiKeysService {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly users: UsersService,
    private readonly orgs: OrganizationsService,
    private readonly crypto: CryptoService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  toDto(row: ApiKeyRow): ApiKeyDto {
    return {
      id: row.id,
      name: row.name,
      organization_id: row.organization_id,
      access: row.access,
      prefix: row.prefix,
      created_at: row.created_at.toISOString(),
      expires_at: row.expires_at.toISOString(),
      last_used_at: row.last_used_at?.toISOString() ?? null,
    };
  }

  /** Needs a browser session with a recent step-up (the decorators), an adult, and membership in the organization. */
  async create(credential: Credential, dto: CreateApiKeyDto, ip: string | undefined): Promise<CreatedApiKeyDto> {
    const user = await this.users.getById(credential.userId);
    if (user.ageBracket !== 'adult') {
      throw ApiError.forbidden('Only adults can create tokens: complete onboarding with the adult declaration first.');
    }
    const organizationId = dto.organization_id.toLowerCase();
    if (!(await this.orgs.membership(organizationId, user.id))) throw ApiError.notFound();
    if (await this.orgs.isSuspended(organizationId))
      throw ApiError.forbidden('This organization is suspended.', 'organization_suspended');
    const random = this.crypto.randomToken(32);
    const token = formatToken(PERSONAL_TOKEN, random);
    const now = this.clock.now();
    const row = await this.transactions.run(async (tx) => {
      const created = await this.keys.insert(
        {
          userId: user.id,
          organizationId,
          name: dto.name,
          prefix: `${PERSONAL_TOKEN.prefix}${random.slice(0, 4)}`,
          tokenHash: this.crypto.sha256(token),
          access: dto.access,
          now,
          expiresAt: new Date(now.getTime() + dto.expires_in_days * DAY_MS),
        },
        tx,
      );
      await this.audit.record(
        {
          action: 'api_key.created',
          actorId: user.id,
          organizationId,
          targetType: 'api_key',
          targetId: created.id,
          ip,
          metadata: { access: dto.access, expires_in_days: dto.expires_in_days },
        },
        tx,
      );
      return created;
    });
    return { ...this.toDto(row), token };
  }

  async list(userId: string): Promise<ApiKeyDto[]> {
    return (await this.keys.listLive(userId)).map((row) => this.toDto(row));
  }

  async revoke(credential: Credential, id: string, ip: string | undefined): Promise<void> {
    const row = await this.transactions.run(async (tx) => {
      const revoked = await this.keys.revoke(id, credential.userId, this.clock.now(), tx);
      if (revoked) {
        await this.audit.record(
          {
            action: 'api_key.revoked',
            actorId: credential.userId,
            organizationId: revoked.organization_id,
            targetType: 'api_key',
            targetId: revoked.id,
            ip,
          },
          tx,
        );
      }
      return revoked;
    });
    if (!row) throw ApiError.notFound();
  }

  /**
   * A person who leaves an organization loses its tokens for good (re-joining later must not revive them).
   * Called in the removal's transaction.
   */
  revokeAllFor(organizationId: string, userId: string, tx: Tx): Promise<number> {
    return this.keys.revokeAllFor(organizationId, userId, this.clock.now(), tx);
  }

  /** The credential of a presented token, or null when it is malformed, unknown, revoked or expired. */
  async authenticate(token: string): Promise<Credential | null> {
    if (!hasValidChecksum(PERSONAL_TOKEN, token)) return null;
    const row = await this.keys.findByHash(this.crypto.sha256(token));
    const now = this.clock.now();
    if (!row || row.revoked_at || row.expires_at.getTime() <= now.getTime()) return null;
    const user = await this.users.findById(row.user_id);
    if (!user) return null;
    // A suspended membership (the directory deactivated the person) refuses the token from the next request.
    if (!(await this.orgs.membership(row.organization_id, row.user_id))) return null;
    this.recordUse(row.id, now);
    return bearerCredential(
      'personal_token',
      { id: row.id, userId: row.user_id, organizationId: row.organization_id, access: row.access },
      user,
    );
  }

  private recordUse(id: string, now: Date): void {
    const last = this.lastTouched.get(id) ?? 0;
    if (now.getTime() - last < TOUCH_EVERY_MS) return;
    this.lastTouched.set(id, now.getTime());
    void this.keys.touch(id, now).catch(() => this.lastTouched.delete(id));
  }
}
