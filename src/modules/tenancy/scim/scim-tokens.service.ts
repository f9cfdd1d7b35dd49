import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Membership } from '@/core/auth/tenancy';
import { formatToken, hasValidChecksum, SCIM_TOKEN } from '@/core/auth/token-format';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import type { CreateScimTokenDto, CreatedScimTokenDto, ScimActivityDto, ScimTokenDto } from './dto/scim-token.dto';
import { type ScimActivityRow, type ScimTokenRow, ScimTokensRepository } from './scim-tokens.repository';

export const MAX_SCIM_TOKENS = 5;
const TOUCH_EVERY_MS = 60_000;

/** The organization's SCIM tokens (extensions-v3 2.1) and the log of SCIM requests (2.5). */
@Injectable()
export class ScimTokensService {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly tokens: ScimTokensRepository,
    private readonly crypto: CryptoService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  async list(organizationId: string): Promise<ScimTokenDto[]> {
    return (await this.tokens.listLive(organizationId)).map(toDto);
  }

  /** 409 `scim_token_limit_reached` at 5 live tokens (serialized per organization). Audited. */
  async create(caller: Membership, dto: CreateScimTokenDto, ip: string | undefined): Promise<CreatedScimTokenDto> {
    const token = formatToken(SCIM_TOKEN, this.crypto.randomToken(32));
    const organizationId = caller.organizationId;
    const row = await this.transactions.run(async (tx) => {
      await this.tokens.lockOrganization(organizationId, tx);
      if ((await this.tokens.listLive(organizationId, tx)).length >= MAX_SCIM_TOKENS) {
        throw ApiError.conflict(
          'scim_token_limit_reached',
          `An organization has at most ${MAX_SCIM_TOKENS} SCIM tokens: revoke one first.`,
        );
      }
      const created = await this.tokens.insert(
        {
          organizationId,
          description: dto.description,
          defaultRole: dto.default_role ?? 'student',
          tokenHash: this.crypto.sha256(token),
          createdBy: caller.userId,
        },
        this.clock.now(),
        tx,
      );
      await this.audit.record(
        {
          action: 'scim_token.created',
          actorId: caller.userId,
          organizationId,
          targetType: 'scim_token',
          targetId: created.id,
          ip,
          metadata: { default_role: created.default_role },
        },
        tx,
      );
      return created;
    });
    return { ...toDto(row), token };
  }

  /** Refused at once on every instance (the cached copy is invalidated in the transaction). Audited. */
  async revoke(caller: Membership, id: string, ip: string | undefined): Promise<void> {
    const revoked = await this.transactions.run(async (tx) => {
      const row = await this.tokens.revoke(caller.organizationId, id, this.clock.now(), tx);
      if (row) {
        await this.audit.record(
          {
            action: 'scim_token.revoked',
            actorId: caller.userId,
            organizationId: caller.organizationId,
            targetType: 'scim_token',
            targetId: row.id,
            ip,
          },
          tx,
        );
      }
      return row;
    });
    if (!revoked) throw ApiError.notFound();
  }

  /** The live token this bearer value names, or null (malformed, unknown or revoked). */
  async authenticate(bearer: string): Promise<ScimTokenRow | null> {
    if (!hasValidChecksum(SCIM_TOKEN, bearer)) return null;
    const row = await this.tokens.findByHash(this.crypto.sha256(bearer));
    if (!row || row.revoked_at) return null;
    const now = this.clock.now();
    const last = this.lastTouched.get(row.id) ?? 0;
    if (now.getTime() - last >= TOUCH_EVERY_MS) {
      this.lastTouched.set(row.id, now.getTime());
      void this.tokens.touch(row.id, now).catch(() => this.lastTouched.delete(row.id));
    }
    return row;
  }

  recordActivity(organizationId: string, tokenId: string, entry: Omit<ScimActivityRow, 'at'>): Promise<void> {
    return this.tokens.recordActivity(organizationId, tokenId, { ...entry, at: this.clock.now() });
  }

  async activity(organizationId: string): Promise<ScimActivityDto[]> {
    return (await this.tokens.listActivity(organizationId)).map((r) => ({
      at: r.at.toISOString(),
      method: r.method,
      path: r.path,
      status: r.status,
      detail: r.detail,
    }));
  }
}

function toDto(row: ScimTokenRow): ScimTokenDto {
  return {
    id: row.id,
    description: row.description,
    default_role: row.default_role,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    created_by: row.created_by,
  };
}
