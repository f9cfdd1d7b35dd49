import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { isUniqueViolation } from '@/core/database/constraint-violation';
import { ExternalSignInService, normalizeIssuer } from '@/modules/identity/external-auth';
import type { CreateSsoConnectionDto, SsoConnectionDto, SsoDomainDto, UpdateSsoConnectionDto } from './dto/sso.dto';
import { DomainVerifier } from './domain-verifier';
import {
  type SsoConnectionChanges,
  type SsoConnectionRow,
  SsoConnectionsRepository,
} from './sso-connections.repository';
import { type SsoDomainRow, SsoDomainsRepository } from './sso-domains.repository';
import { connectionIssuerProblem, normalizeDomain, verificationRecord } from './sso-rules';

export interface Actor {
  userId: string;
  ip: string | undefined;
}

const DOMAIN_TAKEN = (): ApiError =>
  ApiError.conflict('domain_taken', 'Another organization has already verified this domain.');

/** An organization's SSO set-up: its connections (client secrets encrypted) and its verified email domains. */
@Injectable()
export class SsoAdminService {
  constructor(
    private readonly connections: SsoConnectionsRepository,
    private readonly domains: SsoDomainsRepository,
    private readonly verifier: DomainVerifier,
    private readonly external: ExternalSignInService,
    private readonly crypto: CryptoService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  connectionDto(row: SsoConnectionRow): SsoConnectionDto {
    return {
      id: row.id,
      name: row.name,
      issuer: row.issuer,
      client_id: row.client_id,
      enabled: row.enabled,
      created_at: row.created_at.toISOString(),
    };
  }

  domainDto(row: SsoDomainRow): SsoDomainDto {
    return {
      id: row.id,
      domain: row.domain,
      status: row.status,
      verification: verificationRecord(row.domain, row.verification_token),
      enforced: row.enforced,
      verified_at: row.verified_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
    };
  }

  async listConnections(
    organizationId: string,
    page: { limit: number; offset: number },
  ): Promise<Page<SsoConnectionDto>> {
    const { rows, total } = await this.connections.list(organizationId, page.limit, page.offset);
    return toPage(
      rows.map((r) => this.connectionDto(r)),
      total,
      page,
    );
  }

  async getConnection(organizationId: string, id: string): Promise<SsoConnectionRow> {
    const row = await this.connections.find(organizationId, id);
    if (!row) throw ApiError.notFound();
    return row;
  }

  async createConnection(organizationId: string, dto: CreateSsoConnectionDto, actor: Actor): Promise<SsoConnectionDto> {
    const issuer = this.checkIssuer(dto.issuer);
    const row = await this.transactions.run(async (tx) => {
      const created = await this.connections.insert(
        organizationId,
        {
          name: dto.name,
          issuer,
          client_id: dto.client_id,
          client_secret_encrypted: this.crypto.encrypt(dto.client_secret),
          enabled: dto.enabled ?? true,
        },
        actor.userId,
        this.clock.now(),
        tx,
      );
      await this.record('sso.connection_created', organizationId, created.id, actor, tx, { enabled: created.enabled });
      return created;
    });
    return this.connectionDto(row);
  }

  async updateConnection(
    organizationId: string,
    id: string,
    dto: UpdateSsoConnectionDto,
    actor: Actor,
  ): Promise<SsoConnectionDto> {
    const before = await this.getConnection(organizationId, id);
    const changes: SsoConnectionChanges = {};
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.issuer !== undefined) changes.issuer = this.checkIssuer(dto.issuer);
    if (dto.client_id !== undefined) changes.client_id = dto.client_id;
    if (dto.client_secret !== undefined) changes.client_secret_encrypted = this.crypto.encrypt(dto.client_secret);
    if (dto.enabled !== undefined) changes.enabled = dto.enabled;
    const row = await this.transactions.run(async (tx) => {
      const updated = await this.connections.update(organizationId, id, changes, this.clock.now(), tx);
      if (!updated) throw ApiError.notFound();
      // Field names only: a secret (or anything else) never reaches the audit log.
      const fields = Object.keys(dto).filter((k) => (dto as Record<string, unknown>)[k] !== undefined);
      await this.record('sso.connection_updated', organizationId, id, actor, tx, { fields });
      return updated;
    });
    this.external.forgetIssuer({ issuer: before.issuer, clientId: before.client_id });
    return this.connectionDto(row);
  }

  async deleteConnection(organizationId: string, id: string, actor: Actor): Promise<void> {
    const row = await this.transactions.run(async (tx) => {
      const deleted = await this.connections.delete(organizationId, id, tx);
      if (!deleted) throw ApiError.notFound();
      await this.record('sso.connection_deleted', organizationId, id, actor, tx);
      return deleted;
    });
    this.external.forgetIssuer({ issuer: row.issuer, clientId: row.client_id });
  }

  async listDomains(organizationId: string, page: { limit: number; offset: number }): Promise<Page<SsoDomainDto>> {
    const { rows, total } = await this.domains.list(organizationId, page.limit, page.offset);
    return toPage(
      rows.map((r) => this.domainDto(r)),
      total,
      page,
    );
  }

  async addDomain(organizationId: string, input: string, actor: Actor): Promise<SsoDomainDto> {
    const domain = normalizeDomain(input);
    if (!domain)
      throw ApiError.validation([
        { field: 'domain', message: 'domain must be a host name such as university.example' },
      ]);
    if (await this.domains.findByDomain(organizationId, domain)) {
      throw ApiError.conflict('domain_already_added', 'This organization already has this domain.');
    }
    const verified = await this.domains.findVerified(domain);
    if (verified && verified.organization_id !== organizationId) throw DOMAIN_TAKEN();
    const row = await this.transactions
      .run(async (tx) => {
        const created = await this.domains.insert(
          organizationId,
          domain,
          this.crypto.randomToken(24),
          this.clock.now(),
          tx,
        );
        await this.record('sso.domain_added', organizationId, created.id, actor, tx);
        return created;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, 'sso_domains_org_domain_uq')) {
          throw ApiError.conflict('domain_already_added', 'This organization already has this domain.');
        }
        throw err;
      });
    return this.domainDto(row);
  }

  /** Looks the TXT record up; 409 `domain_not_verified` when it is not there, `domain_taken` when another organization holds the domain. */
  async verifyDomain(organizationId: string, id: string, actor: Actor): Promise<SsoDomainDto> {
    const row = await this.domains.find(organizationId, id);
    if (!row) throw ApiError.notFound();
    if (row.status === 'verified') return this.domainDto(row);
    const taken = await this.domains.findVerified(row.domain);
    if (taken && taken.organization_id !== organizationId) throw DOMAIN_TAKEN();
    const record = verificationRecord(row.domain, row.verification_token);
    if (!(await this.verifier.hasTxtRecord(record.name, record.value))) {
      throw ApiError.conflict(
        'domain_not_verified',
        `The TXT record ${record.name} with the expected value was not found. DNS changes can take a while to appear.`,
      );
    }
    const verified = await this.transactions
      .run(async (tx) => {
        const updated = await this.domains.markVerified(organizationId, id, this.clock.now(), tx);
        if (!updated) throw ApiError.notFound();
        await this.record('sso.domain_verified', organizationId, id, actor, tx);
        return updated;
      })
      .catch((err: unknown) => {
        // Two organizations verifying the same domain at once: the unique index lets one win.
        if (isUniqueViolation(err, 'sso_domains_verified_uq')) throw DOMAIN_TAKEN();
        throw err;
      });
    return this.domainDto(verified);
  }

  async setEnforced(organizationId: string, id: string, enforced: boolean, actor: Actor): Promise<SsoDomainDto> {
    const row = await this.domains.find(organizationId, id);
    if (!row) throw ApiError.notFound();
    if (row.status !== 'verified') {
      const taken = await this.domains.findVerified(row.domain);
      if (taken && taken.organization_id !== organizationId) throw DOMAIN_TAKEN();
      throw ApiError.conflict('domain_not_verified', 'Only a verified domain can enforce SSO. Verify it first.');
    }
    const updated = await this.transactions.run(async (tx) => {
      const changed = await this.domains.setEnforced(organizationId, id, enforced, tx);
      if (!changed) throw ApiError.conflict('domain_not_verified', 'Only a verified domain can enforce SSO.');
      await this.record(enforced ? 'sso.domain_enforced' : 'sso.domain_unenforced', organizationId, id, actor, tx);
      return changed;
    });
    return this.domainDto(updated);
  }

  async deleteDomain(organizationId: string, id: string, actor: Actor): Promise<void> {
    await this.transactions.run(async (tx) => {
      if (!(await this.domains.delete(organizationId, id, tx))) throw ApiError.notFound();
      await this.record('sso.domain_deleted', organizationId, id, actor, tx);
    });
  }

  recordTest(organizationId: string, connectionId: string, actor: Actor): Promise<void> {
    return this.record('sso.connection_tested', organizationId, connectionId, actor);
  }

  private checkIssuer(raw: string): string {
    const issuer = normalizeIssuer(raw);
    const problem = this.external.issuerProblem(issuer) ?? connectionIssuerProblem(issuer);
    if (problem) throw ApiError.validation([{ field: 'issuer', message: `issuer ${problem}` }]);
    return issuer;
  }

  private record(
    action: string,
    organizationId: string,
    targetId: string,
    actor: Actor,
    tx?: Parameters<AuditService['record']>[1],
    metadata?: Record<string, string | number | boolean | null | string[]>,
  ): Promise<void> {
    const targetType = action.startsWith('sso.domain') ? 'sso_domain' : 'sso_connection';
    return this.audit.record(
      { action, actorId: actor.userId, organizationId, targetType, targetId, ip: actor.ip, metadata },
      tx,
    );
  }
}
