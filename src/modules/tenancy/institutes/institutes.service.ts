import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import { isAdmin } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import type { CreateInstituteDto, InstituteDto, InstituteListDto, UpdateInstituteDto } from './dto/institute.dto';
import { type InstituteRow, InstitutesRepository, type InstituteValues } from './institutes.repository';

const UPDATABLE = ['name', 'city', 'contact_email', 'website'] as const;

/**
 * Institutes as seen from the organization a request acts in (the token's, or the session's active one): only the
 * linked ones, each with only that organization's cohorts.
 */
@Injectable()
export class InstitutesService {
  constructor(
    private readonly institutes: InstitutesRepository,
    private readonly cohorts: CohortsService,
    private readonly organizations: OrganizationsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  async list(credential: Credential): Promise<InstituteListDto> {
    const { organization } = await this.organizations.requestOrganization(credential);
    const rows = await this.institutes.listLinked(organization.id);
    return { institutes: rows.map((row) => this.toDto(row)) };
  }

  async get(credential: Credential, instituteId: string): Promise<InstituteDto> {
    const { organization } = await this.organizations.requestOrganization(credential);
    const row = await this.institutes.findLinked(organization.id, instituteId);
    if (!row) throw ApiError.notFound();
    const cohorts = await this.cohorts.listOfInstitute(organization.id, row.id);
    // Counted from the same list, so the two never disagree.
    return { ...this.toDto({ ...row, cohorts_count: cohorts.length }), cohorts };
  }

  async create(credential: Credential, dto: CreateInstituteDto, ip?: string): Promise<InstituteDto> {
    const organizationId = await this.adminOrganization(credential);
    const values: InstituteValues = {
      name: dto.name,
      city: dto.city ?? null,
      contact_email: dto.contact_email ?? null,
      website: dto.website ?? null,
    };
    const row = await this.transactions.run(async (tx) => {
      const created = await this.institutes.insert(organizationId, values, this.clock.now(), tx);
      await this.audit.record(
        {
          action: 'institute.created',
          actorId: credential.userId,
          organizationId,
          targetType: 'institute',
          targetId: created.id,
          ip,
        },
        tx,
      );
      return created;
    });
    return this.toDto(row);
  }

  async update(
    credential: Credential,
    instituteId: string,
    dto: UpdateInstituteDto,
    ip?: string,
  ): Promise<InstituteDto> {
    const organizationId = await this.adminOrganization(credential);
    const fields = UPDATABLE.filter((field) => dto[field] !== undefined);
    const row = await this.transactions.run(async (tx) => {
      const current = await this.manageable(organizationId, instituteId, tx);
      if (fields.length === 0) return current;
      await this.institutes.update(
        organizationId,
        instituteId,
        {
          name: dto.name ?? current.name,
          city: dto.city === undefined ? current.city : dto.city,
          contact_email: dto.contact_email === undefined ? current.contact_email : dto.contact_email,
          website: dto.website === undefined ? current.website : dto.website,
        },
        tx,
      );
      await this.audit.record(
        {
          action: 'institute.updated',
          actorId: credential.userId,
          organizationId,
          targetType: 'institute',
          targetId: instituteId,
          ip,
          metadata: { fields: [...fields] },
        },
        tx,
      );
      return this.institutes.findLinked(organizationId, instituteId, tx);
    });
    if (!row) throw ApiError.notFound();
    return this.toDto(row);
  }

  async remove(credential: Credential, instituteId: string, ip?: string): Promise<void> {
    const organizationId = await this.adminOrganization(credential);
    await this.transactions.run(async (tx) => {
      const current = await this.manageable(organizationId, instituteId, tx);
      await this.institutes.delete(organizationId, instituteId, tx);
      await this.audit.record(
        {
          action: 'institute.deleted',
          actorId: credential.userId,
          organizationId,
          targetType: 'institute',
          targetId: instituteId,
          ip,
          metadata: { cohorts_count: current.cohorts_count },
        },
        tx,
      );
    });
  }

  /** The organization of the request, when the caller is its owner or admin (403 otherwise). */
  private async adminOrganization(credential: Credential): Promise<string> {
    const { organization, membership } = await this.organizations.requestOrganization(credential);
    if (!isAdmin(membership.role)) throw ApiError.forbidden();
    return organization.id;
  }

  /**
   * The institute, locked, when this organization may change it: linked to it (404 otherwise) and to no other
   * organization (409 `institute_shared`), so that no organization renames or deletes what another one uses.
   */
  private async manageable(organizationId: string, instituteId: string, tx: Tx): Promise<InstituteRow> {
    const row = await this.institutes.findLinked(organizationId, instituteId, tx, true);
    if (!row) throw ApiError.notFound();
    if (await this.institutes.linkedElsewhere(organizationId, instituteId, tx)) {
      throw ApiError.conflict(
        'institute_shared',
        'Another organization uses this institute too; it cannot be changed here.',
      );
    }
    return row;
  }

  private toDto(row: InstituteRow): InstituteDto {
    return {
      id: row.id,
      name: row.name,
      city: row.city,
      contact_email: row.contact_email,
      website: row.website,
      cohorts_count: row.cohorts_count,
      created_at: row.created_at.toISOString(),
    };
  }
}
