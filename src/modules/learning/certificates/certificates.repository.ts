import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { escapeLiteral, type PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { DataSource, type QueryRunner } from 'typeorm';
import { db } from '@/core/database/db';
import { PoolQueries } from '@/core/database/pool-queries';
import type { Tx } from '@/core/database/transaction';
import { TurnBatcher } from '@/core/database/turn-batcher';
import type { CertificateType } from './certificate-code';
import type { CertificateStatus } from './certificate-export';
import type { CertificateTemplate } from './certificate-template';
import { PLATFORM_TEMPLATE_KEY } from './platform-template';
import { type CertificateFilter, certificateWhere } from './certificate-query';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface IssuedCertificateRow {
  id: string;
  code: string;
  type: CertificateType;
  status: CertificateStatus;
  organization_id: string;
  user_id: string;
  /** Null once the holder's account was erased without keeping names (extensions-v2 17.4). */
  holder_name: string | null;
  course_id: string | null;
  path_id: string | null;
  cohort_id: string | null;
  title: string;
  grade: number | null;
  issued_at: Date;
  revoked_at: Date | null;
  revoke_reason: string | null;
  replaced_by_id: string | null;
  replaces_id: string | null;
  reissue_reason: string | null;
}

/** A certificate with the code of the one that replaced it (null unless replaced). */
export interface CertificateView extends IssuedCertificateRow {
  replaced_by_code: string | null;
}

/** What public verification reads: the certificate and the platform's stored template (null while never saved). */
export type VerificationRow = CertificateView & { platform_template: Partial<CertificateTemplate> | null };

export const CERTIFICATE_COLUMNS = `id, code, type, status, organization_id, user_id, holder_name, course_id, path_id, cohort_id, title,
  grade, issued_at, revoked_at, revoke_reason, replaced_by_id, replaces_id, reissue_reason`;

/** The columns of `c` plus `replaced_by_code`, for `FROM issued_certificates c LEFT JOIN issued_certificates r`. */
const VIEW_COLUMNS = `c.id, c.code, c.type, c.status, c.organization_id, c.user_id, c.holder_name, c.course_id, c.path_id,
  c.cohort_id, c.title, c.grade, c.issued_at, c.revoked_at, c.revoke_reason, c.replaced_by_id, c.replaces_id,
  c.reissue_reason, r.code AS replaced_by_code`;
const VIEW_FROM = `issued_certificates c LEFT JOIN issued_certificates r ON r.id = c.replaced_by_id`;

export interface NewCertificate {
  code: string;
  type: CertificateType;
  organizationId: string;
  userId: string;
  holderName: string;
  courseId: string | null;
  pathId: string | null;
  /** The cohort to record; `undefined` records the holder's first student cohort in the organization, if any. */
  cohortId?: string | null;
  title: string;
  grade: number | null;
  issuedAt: Date;
  replacesId?: string | null;
  reissueReason?: string | null;
}

/**
 * An open export: a REPEATABLE READ transaction on a connection of its own, so the count that decides the
 * 413, the audit entry and the streamed rows all see one snapshot. `close` must be called exactly once.
 */
export interface ExportCursor {
  readonly tx: Tx;
  count(): Promise<number>;
  /**
   * The rows as PostgreSQL's own CSV writer gives them (`COPY (SELECT <columns> ...) TO STDOUT WITH (FORMAT csv)`,
   * pg-copy-streams): bytes, with back-pressure down to the connection, never the whole result in memory. Pipe it
   * with `pipe` (a destroyed COPY stream would leave the connection mid-COPY); `close` drains what is left.
   */
  copy(columns: string, delimiter: string): Readable;
  close(): Promise<void>;
}

/** Issued certificates are tenant data: bound to the issuing organization. */
@Injectable()
export class CertificatesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly pool: PoolQueries,
  ) {}

  /**
   * Inserts unless the code is taken or the person already holds an active certificate for the same course or
   * program in this organization (the partial unique indexes); returns the row only when it was inserted.
   * The holder's cohort is read in the same statement: inside the caller's transaction, a read on another
   * connection would wait forever for it on the embedded server (PGlite runs one transaction at a time).
   */
  async insertIfAbsent(c: NewCertificate, tx: Tx): Promise<IssuedCertificateRow | null> {
    const cohort =
      c.cohortId === undefined
        ? `(SELECT cm.cohort_id FROM cohort_members_read cm WHERE $8::uuid IS NULL AND ${orgEq(3, 'cm')}
             AND cm.user_id = $4 AND cm.role = 'student' ORDER BY cm.added_at, cm.cohort_id LIMIT 1)`
        : '$8::uuid';
    const rows = await tx.manager.query<IssuedCertificateRow[]>(
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, path_id, cohort_id, title, grade,
         issued_at, replaces_id, reissue_reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, ${cohort}, $9, $10, $11, $12, $13)
       ON CONFLICT DO NOTHING RETURNING ${CERTIFICATE_COLUMNS}`,
      [
        c.code,
        c.type,
        c.organizationId,
        c.userId,
        c.holderName,
        c.courseId,
        c.pathId,
        c.cohortId ?? null,
        c.title,
        c.grade,
        c.issuedAt,
        c.replacesId ?? null,
        c.reissueReason ?? null,
      ],
    );
    return rows[0] ?? null;
  }

  async findActive(
    organizationId: string,
    userId: string,
    type: CertificateType,
    subjectId: string,
    tx?: Tx,
  ): Promise<IssuedCertificateRow | null> {
    const column = type === 'course' ? 'course_id' : 'path_id';
    const rows = await db(this.dataSource, tx).query<IssuedCertificateRow[]>(
      `SELECT ${CERTIFICATE_COLUMNS} FROM issued_certificates
       WHERE ${orgEq(1)} AND user_id = $2 AND type = $3 AND ${column} = $4 AND status = 'active'`,
      [organizationId, userId, type, subjectId],
    );
    return rows[0] ?? null;
  }

  /** The person's most recent certificate (any status) for a program in this organization. */
  async latestForProgram(organizationId: string, userId: string, pathId: string): Promise<CertificateView | null> {
    const rows = await this.dataSource.query<CertificateView[]>(
      `SELECT ${VIEW_COLUMNS} FROM ${VIEW_FROM}
       WHERE ${orgEq(1, 'c')} AND c.user_id = $2 AND c.path_id = $3
       ORDER BY c.issued_at DESC, c.id DESC LIMIT 1`,
      [organizationId, userId, pathId],
    );
    return rows[0] ?? null;
  }

  /**
   * Public verification: by the exact (normalized) code, through `issued_certificates_code_uq`, with the platform's
   * stored template (`platform_settings`, by primary key; null while never saved) in the same statement: one round
   * trip per verification. The busiest public read, so it goes to the driver's pool as a named statement (parsed
   * and planned once per connection) instead of through TypeORM, and the codes asked for during one turn of the
   * event loop share one statement (`code = ANY($1)`; bench/README.md, "Certificates").
   */
  findByCode(code: string): Promise<VerificationRow | null> {
    return this.byCode.load(code);
  }

  private readonly byCode = new TurnBatcher<string, VerificationRow>(async (codes) => {
    const rows = await this.pool.query<VerificationRow>(
      'certificates.find_by_codes',
      `${tenancyExempt('public-by-key')} SELECT ${VIEW_COLUMNS},
          (SELECT s.value FROM platform_settings s WHERE s.key = '${PLATFORM_TEMPLATE_KEY}') AS platform_template
        FROM ${VIEW_FROM} WHERE c.code = ANY ($1::text[])`,
      [codes],
    );
    return new Map(rows.map((row) => [row.code, row]));
  });

  async findInOrganization(organizationId: string, id: string, tx?: Tx): Promise<CertificateView | null> {
    const rows = await db(this.dataSource, tx).query<CertificateView[]>(
      `SELECT ${VIEW_COLUMNS} FROM ${VIEW_FROM} WHERE ${orgEq(1, 'c')} AND c.id = $2`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  /** The certificate, locked until the transaction ends (revoke and reissue are read-modify-write). */
  async lockInOrganization(organizationId: string, id: string, tx: Tx): Promise<IssuedCertificateRow | null> {
    const rows = await tx.manager.query<IssuedCertificateRow[]>(
      `SELECT ${CERTIFICATE_COLUMNS} FROM issued_certificates WHERE ${orgEq(1)} AND id = $2 FOR UPDATE`,
      [organizationId, id],
    );
    return rows[0] ?? null;
  }

  async markRevoked(organizationId: string, id: string, reason: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE issued_certificates SET status = 'revoked', revoked_at = $3, revoke_reason = $4
       WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, id, now, reason],
    );
  }

  /** Step one of a reissue: the old certificate stops being active, so the new one may be. */
  async markReplaced(organizationId: string, id: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE issued_certificates SET status = 'replaced', revoked_at = $3 WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, id, now],
    );
  }

  async linkReplacement(organizationId: string, id: string, replacementId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`UPDATE issued_certificates SET replaced_by_id = $3 WHERE ${orgEq(1)} AND id = $2`, [
      organizationId,
      id,
      replacementId,
    ]);
  }

  /**
   * A page of the organization's certificates, most recent first (indexes: see `certificateWhere`). The page's ids
   * are found first (an index-only scan, cheap to skip even 5 000 entries of), then only those rows are read.
   * `total` is exact: for the organization-wide filters (none, status, type) it is read from
   * `issued_certificate_counts`, which triggers keep in the same transaction as every change of the certificates
   * (migration 1763760000000); narrower filters count through their own index.
   */
  async list(
    organizationId: string,
    filter: CertificateFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: CertificateView[]; total: number }> {
    const { sql, params } = certificateWhere(organizationId, filter);
    const [rows, total] = await Promise.all([
      this.dataSource.query<CertificateView[]>(
        `SELECT ${VIEW_COLUMNS} FROM ${VIEW_FROM}
         WHERE c.id = ANY (ARRAY(SELECT c.id FROM issued_certificates c WHERE ${sql}
           ORDER BY c.issued_at DESC, c.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}))
         ORDER BY c.issued_at DESC, c.id DESC`,
        [...params, page.limit, page.offset],
      ),
      this.countOf(organizationId, filter, sql, params),
    ]);
    return { rows, total };
  }

  private async countOf(
    organizationId: string,
    filter: CertificateFilter,
    sql: string,
    params: unknown[],
  ): Promise<number> {
    if (!filter.courseId && !filter.pathId && !filter.cohortId && !filter.teacherId) {
      const rows = await this.dataSource.query<{ total: number }[]>(
        `SELECT coalesce(sum(n), 0)::int AS total FROM issued_certificate_counts
         WHERE ${orgEq(1)} AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR type = $3)`,
        [organizationId, filter.status ?? null, filter.type ?? null],
      );
      return rows[0]?.total ?? 0;
    }
    const rows = await this.dataSource.query<{ total: number }[]>(
      `SELECT count(*)::int AS total FROM issued_certificates c WHERE ${sql}`,
      params,
    );
    return rows[0]?.total ?? 0;
  }

  /** Every certificate this person holds, most recent first (`issued_certificates_user_idx`). */
  listOfHolder(userId: string, organizationId: string | null): Promise<CertificateView[]> {
    return this.dataSource.query<CertificateView[]>(
      `SELECT ${VIEW_COLUMNS} FROM ${VIEW_FROM}
       WHERE c.user_id = $1 AND ($2::uuid IS NULL OR ${orgEq(2, 'c')})
       ORDER BY c.issued_at DESC, c.id DESC`,
      [userId, organizationId],
    );
  }

  /** One of this person's certificates (in this organization only, when given). */
  async findOfHolder(userId: string, id: string, organizationId: string | null): Promise<CertificateView | null> {
    const rows = await this.dataSource.query<CertificateView[]>(
      `SELECT ${VIEW_COLUMNS} FROM ${VIEW_FROM}
       WHERE c.id = $2 AND c.user_id = $1 AND ($3::uuid IS NULL OR ${orgEq(3, 'c')})`,
      [userId, id, organizationId],
    );
    return rows[0] ?? null;
  }

  /** Opens an export of the organization's certificates matching the filter, most recent first. */
  async openExport(organizationId: string, filter: CertificateFilter): Promise<ExportCursor> {
    const { sql, params } = certificateWhere(organizationId, filter);
    const runner: QueryRunner = this.dataSource.createQueryRunner();
    await runner.connect();
    let open = true;
    let copying: Readable | null = null;
    try {
      await runner.startTransaction('REPEATABLE READ');
    } catch (err) {
      await runner.release();
      throw err;
    }
    return {
      tx: { manager: runner.manager, afterCommit: () => undefined },
      count: async () => {
        const rows = await runner.manager.query<{ total: number }[]>(
          `SELECT count(*)::int AS total FROM issued_certificates c WHERE ${sql}`,
          params,
        );
        return rows[0]?.total ?? 0;
      },
      copy: (columns: string, delimiter: string): Readable => {
        // COPY takes no bind parameters: the filter's values (UUIDs and enum words, validated by the DTO) are
        // written as literals with the driver's own escaping.
        const where = sql.replace(/\$(\d+)/g, (_, n: string) => escapeLiteral(String(params[Number(n) - 1])));
        const text = `COPY (SELECT ${columns} FROM ${VIEW_FROM} WHERE ${where} ORDER BY c.issued_at DESC, c.id DESC)
          TO STDOUT WITH (FORMAT csv, DELIMITER ${escapeLiteral(delimiter)})`;
        const client = (runner as unknown as { databaseConnection: PoolClient }).databaseConnection;
        copying = client.query(copyTo(text));
        return copying;
      },
      close: async () => {
        if (!open) return;
        open = false;
        try {
          // A COPY cut short (the client went away) still holds the connection: its remaining bytes (at most the
          // 10 000-row cap) are read and dropped, so the transaction can commit with the audit entry.
          if (copying && !copying.readableEnded && !copying.destroyed) {
            copying.unpipe();
            copying.resume();
            await finished(copying).catch(() => undefined);
          }
          // Commit keeps the audit entry written in this transaction, whether or not every byte reached the client.
          if (runner.isTransactionActive) await runner.commitTransaction().catch(() => runner.rollbackTransaction());
        } finally {
          await runner.release();
        }
      },
    };
  }
}
