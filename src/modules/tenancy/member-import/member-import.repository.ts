import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { ImportRow } from './import-file';
import { orgEq } from '@/core/database/tenancy';

export type ImportStatus = 'queued' | 'running' | 'completed' | 'failed';
export type RowOutcome = 'invited' | 'added' | 'skipped' | 'failed';

export interface ImportRecord {
  id: string;
  organization_id: string;
  created_by: string | null;
  status: ImportStatus;
  total: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface ImportCounts {
  processed: number;
  invited: number;
  added: number;
  skipped: number;
  failed: number;
}

export interface PendingRow extends ImportRow {
  import_id: string;
}

const COLUMNS = 'id, organization_id, created_by, status, total, error, created_at, started_at, finished_at';

/**
 * The rows of the import `$1` only when it belongs to the organization `$2` (rows carry no organization of their
 * own; the import's primary key answers this).
 */
const OF_ORGANIZATION = `EXISTS (SELECT 1 FROM member_imports i WHERE i.id = $1 AND ${orgEq(2, 'i')})`;

/** Member imports are tenant data: every query takes the organization id and filters by it. */
@Injectable()
export class MemberImportRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Stores the import and all its rows in the caller's transaction (one statement for the rows). */
  async create(organizationId: string, createdBy: string, rows: ImportRow[], now: Date, tx: Tx): Promise<ImportRecord> {
    const [record] = await tx.manager.query<ImportRecord[]>(
      `INSERT INTO member_imports (organization_id, created_by, status, total, created_at) VALUES ($1, $2, 'queued', $3, $4)
       RETURNING ${COLUMNS}`,
      [organizationId, createdBy, rows.length, now],
    );
    await tx.manager.query(
      `INSERT INTO member_import_rows (import_id, row_number, email, name, role, cohort)
       SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[])`,
      [
        record.id,
        rows.map((r) => r.row),
        rows.map((r) => r.email),
        rows.map((r) => r.name),
        rows.map((r) => r.role),
        rows.map((r) => r.cohort),
      ],
    );
    return record;
  }

  async find(organizationId: string, importId: string): Promise<ImportRecord | null> {
    const rows = await this.dataSource.query<ImportRecord[]>(
      `SELECT ${COLUMNS} FROM member_imports WHERE ${orgEq(1)} AND id = $2`,
      [organizationId, importId],
    );
    return rows[0] ?? null;
  }

  async counts(organizationId: string, importId: string): Promise<ImportCounts> {
    const rows = await this.dataSource.query<{ outcome: RowOutcome; n: number }[]>(
      `SELECT outcome, count(*)::int AS n FROM member_import_rows
       WHERE import_id = $1 AND outcome IS NOT NULL AND ${OF_ORGANIZATION} GROUP BY outcome`,
      [importId, organizationId],
    );
    const by = Object.fromEntries(rows.map((r) => [r.outcome, r.n])) as Partial<Record<RowOutcome, number>>;
    const invited = by.invited ?? 0;
    const added = by.added ?? 0;
    const skipped = by.skipped ?? 0;
    const failed = by.failed ?? 0;
    return { processed: invited + added + skipped + failed, invited, added, skipped, failed };
  }

  async markRunning(organizationId: string, importId: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE member_imports SET status = 'running', started_at = COALESCE(started_at, $3)
       WHERE id = $1 AND ${orgEq(2)} AND status IN ('queued', 'running')`,
      [importId, organizationId, now],
    );
  }

  async finish(
    organizationId: string,
    importId: string,
    outcome: { status: 'completed' | 'failed'; error: string | null },
    now: Date,
    tx?: Tx,
  ): Promise<void> {
    await db(this.dataSource, tx).query(
      `UPDATE member_imports SET status = $3, error = $4, finished_at = $5 WHERE id = $1 AND ${orgEq(2)}`,
      [importId, organizationId, outcome.status, outcome.error, now],
    );
  }

  async pendingBatch(organizationId: string, importId: string, size: number): Promise<PendingRow[]> {
    return this.dataSource.query<PendingRow[]>(
      `SELECT import_id, row_number AS row, email, name, role, cohort FROM member_import_rows
       WHERE import_id = $1 AND outcome IS NULL AND ${OF_ORGANIZATION} ORDER BY row_number LIMIT $3`,
      [importId, organizationId, size],
    );
  }

  async setOutcome(
    organizationId: string,
    row: { import_id: string; row: number },
    outcome: { outcome: RowOutcome; reason: string | null },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `UPDATE member_import_rows SET outcome = $3, reason = $4 WHERE import_id = $1 AND row_number = $5
         AND ${OF_ORGANIZATION}`,
      [row.import_id, organizationId, outcome.outcome, outcome.reason, row.row],
    );
  }

  /** Row outcomes of one import, many at once (one statement), in the caller's transaction. */
  async setOutcomes(
    organizationId: string,
    importId: string,
    outcomes: readonly { row: number; outcome: RowOutcome; reason: string | null }[],
    tx: Tx,
  ): Promise<void> {
    if (outcomes.length === 0) return;
    await tx.manager.query(
      `UPDATE member_import_rows r SET outcome = x.outcome, reason = x.reason
       FROM unnest($3::int[], $4::text[], $5::text[]) AS x(row_number, outcome, reason)
       WHERE r.import_id = $1 AND r.row_number = x.row_number AND ${OF_ORGANIZATION}`,
      [
        importId,
        organizationId,
        outcomes.map((o) => o.row),
        outcomes.map((o) => o.outcome),
        outcomes.map((o) => o.reason),
      ],
    );
  }

  /** Addresses this import already invited or added (a run resuming after a crash starts from these). */
  async handledEmails(organizationId: string, importId: string): Promise<Set<string>> {
    const rows = await this.dataSource.query<{ email: string }[]>(
      `SELECT DISTINCT lower(email) AS email FROM member_import_rows
       WHERE import_id = $1 AND outcome IN ('invited', 'added') AND ${OF_ORGANIZATION}`,
      [importId, organizationId],
    );
    return new Set(rows.map((r) => r.email));
  }

  /** Streams the per-row report in order, without loading it whole. */
  async *reportRows(
    organizationId: string,
    importId: string,
  ): AsyncGenerator<{ row: number; email: string | null; outcome: string | null; reason: string | null }> {
    let after = 0;
    for (;;) {
      const batch = await this.dataSource.query<
        { row: number; email: string | null; outcome: string | null; reason: string | null }[]
      >(
        `SELECT r.row_number AS row, r.email, r.outcome, r.reason FROM member_import_rows r
         JOIN member_imports i ON i.id = r.import_id AND ${orgEq(1, 'i')}
         WHERE r.import_id = $2 AND r.row_number > $3 ORDER BY r.row_number LIMIT 1000`,
        [organizationId, importId, after],
      );
      if (batch.length === 0) return;
      yield* batch;
      after = batch[batch.length - 1].row;
    }
  }
}
