import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface JobRow {
  id: string;
  queue: string;
  name: string;
  organization_id: string | null;
  payload: unknown;
  status: 'pending' | 'running' | 'completed' | 'failed';
  attempts: number;
  max_attempts: number;
  run_after: Date;
}

/** An outbox row as operators see it (no payload: it may hold personal data, and sensitive ones are sealed). */
export interface OutboxRow {
  id: string;
  queue: string;
  name: string;
  organization_id: string | null;
  status: 'pending' | 'running' | 'failed';
  attempts: number;
  max_attempts: number;
  run_after: Date;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface JobStatus {
  status: string;
  attempts: number;
  last_error: string | null;
}

/**
 * The durable outbox of background jobs. Bull (or the in-process driver) only carries job ids.
 *
 * `updated_at` and `finished_at` are the database's `now()` on purpose: they are bookkeeping of real processes
 * (when a worker last touched a job, so the recovery sweep can tell a crashed one from a running one, and when
 * finished rows may be pruned), measured on one wall clock shared by every instance. No rule of the service
 * reads them; `run_after`, which says when a job is due, comes from the Clock.
 */
@Injectable()
export class JobsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    row: {
      queue: string;
      name: string;
      organizationId: string | null;
      payload: unknown;
      maxAttempts: number;
      runAfter: Date;
      dedupeKey: string | null;
    },
    manager?: EntityManager,
  ): Promise<{ id: string; inserted: boolean }> {
    const db = manager ?? this.dataSource.manager;
    const rows = await db.query<{ id: string }[]>(
      `INSERT INTO jobs (queue, name, organization_id, payload, max_attempts, run_after, dedupe_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING
       RETURNING id`,
      [
        row.queue,
        row.name,
        row.organizationId,
        JSON.stringify(row.payload),
        row.maxAttempts,
        row.runAfter,
        row.dedupeKey,
      ],
    );
    if (rows[0]) return { id: rows[0].id, inserted: true };
    const existing = await db.query<{ id: string }[]>(`SELECT id FROM jobs WHERE dedupe_key = $1`, [row.dedupeKey]);
    return { id: existing[0].id, inserted: false };
  }

  /** Many jobs of one kind in one statement (no dedupe keys); the caller chooses their ids. */
  async insertMany(
    rows: {
      ids: readonly string[];
      queue: string;
      name: string;
      organizationId: string | null;
      payloads: readonly unknown[];
      maxAttempts: number;
      runAfter: Date;
    },
    manager?: EntityManager,
  ): Promise<void> {
    if (rows.ids.length === 0) return;
    const db = manager ?? this.dataSource.manager;
    await db.query(
      `INSERT INTO jobs (id, queue, name, organization_id, payload, max_attempts, run_after)
       SELECT id, $3, $4, $5, payload, $6, $7 FROM unnest($1::uuid[], $2::jsonb[]) AS x(id, payload)`,
      [
        rows.ids,
        rows.payloads.map((p) => JSON.stringify(p)),
        rows.queue,
        rows.name,
        rows.organizationId,
        rows.maxAttempts,
        rows.runAfter,
      ],
    );
  }

  /** Takes the job for one try: counts the attempt. Returns null when it is finished or out of tries. */
  async claim(id: string): Promise<JobRow | null> {
    const [rows] = await this.dataSource.query<[JobRow[], number]>(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = now()
       WHERE id = $1 AND status IN ('pending', 'running') AND attempts < max_attempts
       RETURNING id, queue, name, organization_id, payload, status, attempts, max_attempts, run_after`,
      [id],
    );
    return rows[0] ?? null;
  }

  async complete(id: string, erasePayload: boolean): Promise<void> {
    await this.dataSource.query(
      `UPDATE jobs SET status = 'completed', finished_at = now(), updated_at = now(), last_error = NULL,
         payload = CASE WHEN $2 THEN NULL ELSE payload END
       WHERE id = $1`,
      [id, erasePayload],
    );
  }

  async fail(id: string, error: string, final: boolean, retryAt: Date | null, erasePayload: boolean): Promise<void> {
    await this.dataSource.query(
      `UPDATE jobs SET status = CASE WHEN $3 THEN 'failed' ELSE 'pending' END,
         last_error = $2, updated_at = now(), run_after = COALESCE($4, run_after),
         finished_at = CASE WHEN $3 THEN now() ELSE NULL END,
         payload = CASE WHEN $3 AND $5 THEN NULL ELSE payload END
       WHERE id = $1`,
      [id, error.slice(0, 2000), final, retryAt, erasePayload],
    );
  }

  /** Jobs not finished whose last change is older than `staleMs`: candidates for re-dispatch. */
  async findStale(
    staleMs: number,
    limit: number,
  ): Promise<Pick<JobRow, 'id' | 'queue' | 'name' | 'run_after' | 'status'>[]> {
    return await this.dataSource.query<Pick<JobRow, 'id' | 'queue' | 'name' | 'run_after' | 'status'>[]>(
      `SELECT id, queue, name, run_after, status FROM jobs
       WHERE status IN ('pending', 'running') AND updated_at < now() - ($1::int * interval '1 millisecond')
       ORDER BY created_at LIMIT $2`,
      [staleMs, limit],
    );
  }

  /** Marks jobs that already used all their tries as failed (a crash during the last try leaves them running). */
  async failExhausted(): Promise<void> {
    await this.dataSource.query(
      `UPDATE jobs SET status = 'failed', finished_at = now(), updated_at = now(),
         last_error = COALESCE(last_error, 'interrupted on its last attempt')
       WHERE status IN ('pending', 'running') AND attempts >= max_attempts
         AND updated_at < now() - interval '10 minutes'`,
    );
  }

  async pruneFinished(olderThanDays: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM jobs WHERE id IN (
         SELECT id FROM jobs WHERE status IN ('completed', 'failed')
           AND finished_at < now() - ($1::int * interval '1 day') LIMIT 1000)`,
      [olderThanDays],
    );
  }

  async findStatus(id: string): Promise<JobStatus | null> {
    const rows = await this.dataSource.query<JobStatus[]>(
      `SELECT status, attempts, last_error FROM jobs WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Outbox rows not finished (pending, running) or failed for good, oldest due first. */
  async listOutbox(filter: {
    statuses: readonly OutboxRow['status'][];
    queue?: string;
    limit: number;
    offset: number;
  }): Promise<{ rows: OutboxRow[]; total: number }> {
    const params: unknown[] = [filter.statuses];
    let where = 'status = ANY($1::text[])';
    if (filter.queue) {
      params.push(filter.queue);
      where += ` AND queue = $${params.length}`;
    }
    const [rows, count] = await Promise.all([
      this.dataSource.query<OutboxRow[]>(
        `SELECT id, queue, name, organization_id, status, attempts, max_attempts, run_after, last_error, created_at,
                updated_at
           FROM jobs WHERE ${where} ORDER BY run_after, id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, filter.limit, filter.offset],
      ),
      this.dataSource.query<{ n: string }[]>(`SELECT count(*) AS n FROM jobs WHERE ${where}`, params),
    ]);
    return { rows, total: Number(count[0]?.n ?? 0) };
  }
}
