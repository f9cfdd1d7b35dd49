import { Injectable } from '@nestjs/common';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AuditService } from '@/core/audit/audit.service';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import type { Locale } from '@/core/mail/mail-template';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import {
  crlfRecords,
  EXPORT_MAX_ROWS,
  EXPORT_SEPARATORS,
  exportLanguage,
  exportPreamble,
  exportSelectSql,
} from './certificate-export';
import { CertificatesRepository } from './certificates.repository';
import { CertificatesService } from './certificates.service';
import type { CertificateExportQueryDto } from './dto/certificate.dto';

/** A counted, audited export ready to be written: `write` streams it and always releases its connection. */
export interface CertificateExport {
  filename: string;
  lang: Locale;
  rows: number;
  write(destination: Writable): Promise<void>;
}

/**
 * CSV export of an organization's issued certificates: same filters and access as the list, at most
 * 10 000 rows (counted before anything is sent). The cells are formatted by the SELECT and written by PostgreSQL's
 * CSV writer (COPY), so the service only pipes bytes to the response (bench/README.md, "Certificates").
 */
@Injectable()
export class CertificateExportService {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly repository: CertificatesRepository,
    private readonly organizations: OrganizationsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  async prepare(
    membership: Membership,
    query: CertificateExportQueryDto,
    acceptLanguage: string | undefined,
    ip?: string,
  ): Promise<CertificateExport> {
    const filter = await this.certificates.scopedFilter(membership, query);
    const org = await this.organizations.getById(membership.organizationId);
    const lang = exportLanguage(query.lang, acceptLanguage, org.locale === 'en' ? 'en' : 'es');
    const sep = query.sep ?? 'comma';
    const cursor = await this.repository.openExport(membership.organizationId, filter);
    let rows: number;
    try {
      rows = await cursor.count();
      if (rows > EXPORT_MAX_ROWS) {
        throw ApiError.tooLarge(
          'export_too_large',
          `The export would have ${rows} rows; at most ${EXPORT_MAX_ROWS} are allowed. Narrow the filters.`,
        );
      }
      await this.audit.record(
        {
          action: 'certificates.exported',
          actorId: membership.userId,
          organizationId: membership.organizationId,
          targetType: 'organization',
          targetId: membership.organizationId,
          ip,
          metadata: {
            rows,
            course_id: filter.courseId ?? null,
            path_id: filter.pathId ?? null,
            cohort_id: filter.cohortId ?? null,
            status: filter.status ?? null,
            type: filter.type ?? null,
            lang,
            sep,
          },
        },
        cursor.tx,
      );
    } catch (err) {
      await cursor.close();
      throw err;
    }
    const day = this.clock.now().toISOString().slice(0, 10);
    return {
      filename: `certificates-${org.slug}-${day}.csv`,
      lang,
      rows,
      write: async (destination) => {
        try {
          // The header line goes first, also when no row matches; then PostgreSQL's CSV bytes, CRLF-terminated.
          destination.write(exportPreamble(lang, EXPORT_SEPARATORS[sep]));
          const source = cursor.copy(exportSelectSql(lang), EXPORT_SEPARATORS[sep]);
          const records = crlfRecords();
          // Not `pipeline(source, ...)`: a client that goes away must not destroy the COPY mid-way (`close` reads
          // it to its end on the connection); a database error still fails the whole chain.
          source.on('error', (err) => records.destroy(err));
          source.pipe(records);
          await pipeline(records, destination, { end: false });
          // The audit entry commits before the client sees the end of the file.
          await cursor.close();
          destination.end();
        } finally {
          await cursor.close();
        }
      },
    };
  }
}
