import { Injectable } from '@nestjs/common';
import { type Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { AuditService } from '@/core/audit/audit.service';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import type { Locale } from '@/core/mail/mail-template';
import { OrganizationsService } from '@/modules/organizations/organizations.service';
import {
  EXPORT_MAX_ROWS,
  EXPORT_SEPARATORS,
  exportCells,
  exportHeaders,
  exportLanguage,
  type ExportRow,
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
 * 10 000 rows (counted before anything is sent), streamed from PostgreSQL rows to the response.
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
          const source: Readable = await cursor.rows();
          const toCells = new Transform({
            objectMode: true,
            transform(row: ExportRow, _encoding, done) {
              done(null, exportCells(row, lang));
            },
          });
          // RFC 4180: CRLF between records; cells holding the separator, a quote or any line break are quoted.
          const csv = stringify({
            bom: true,
            delimiter: EXPORT_SEPARATORS[sep],
            record_delimiter: '\r\n',
            quoted_match: /[\r\n]/,
          });
          // The header line goes first, also when no row matches.
          toCells.push(exportHeaders(lang));
          await pipeline(source, toCells, csv, destination, { end: false });
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
