import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface VitalRow {
  release: string | null;
  route: string;
  metric: string;
  value: number;
  rating: string;
  navigation_type: string | null;
  device: string;
  browser: string;
}

export interface ErrorRow {
  release: string | null;
  route: string;
  fingerprint: string;
  message: string;
  stack: string | null;
  kind: string;
  device: string;
  browser: string;
}

@Injectable()
export class TelemetryRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertVitals(rows: VitalRow[], now: Date): Promise<void> {
    if (rows.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO telemetry_vitals (release, route, metric, value, rating, navigation_type, device, browser, created_at)
       SELECT v.release, v.route, v.metric, v.value, v.rating, v.navigation_type, v.device, v.browser, $9
       FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[], $6::text[], $7::text[], $8::text[])
         AS v (release, route, metric, value, rating, navigation_type, device, browser)`,
      [
        rows.map((r) => r.release),
        rows.map((r) => r.route),
        rows.map((r) => r.metric),
        rows.map((r) => r.value),
        rows.map((r) => r.rating),
        rows.map((r) => r.navigation_type),
        rows.map((r) => r.device),
        rows.map((r) => r.browser),
        now,
      ],
    );
  }

  async insertError(row: ErrorRow, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO telemetry_errors (release, route, fingerprint, message, stack, kind, device, browser, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [row.release, row.route, row.fingerprint, row.message, row.stack, row.kind, row.device, row.browser, now],
    );
  }

  /** p75 by the nearest-rank method: `percentile_disc(0.75)` is the smallest value with cumulative share >= 0.75. */
  async vitals(
    from: Date,
    to: Date,
    route: string | null,
    release: string | null,
  ): Promise<{ route: string; metric: string; p75: number; samples: number; good_share: number }[]> {
    return this.dataSource.query(
      `SELECT route, metric, percentile_disc(0.75) WITHIN GROUP (ORDER BY value) AS p75, count(*)::int AS samples,
         round(count(*) FILTER (WHERE rating = 'good')::numeric / count(*), 4)::float8 AS good_share
       FROM telemetry_vitals
       WHERE created_at > $1 AND created_at <= $2 AND ($3::text IS NULL OR route = $3)
         AND ($4::text IS NULL OR release = $4)
       GROUP BY route, metric ORDER BY route, metric`,
      [from, to, route, release],
    );
  }

  async errors(
    from: Date,
    to: Date,
    release: string | null,
    page: { limit: number; offset: number },
  ): Promise<{ rows: Record<string, unknown>[]; total: number }> {
    const where = `created_at > $1 AND created_at <= $2 AND ($3::text IS NULL OR release = $3)`;
    const [rows, total] = await Promise.all([
      this.dataSource.query<Record<string, unknown>[]>(
        `SELECT fingerprint, (array_agg(message ORDER BY created_at DESC))[1] AS message,
           (array_agg(stack ORDER BY created_at DESC) FILTER (WHERE stack IS NOT NULL))[1] AS sample_stack,
           array_agg(DISTINCT route ORDER BY route) AS routes,
           coalesce(array_agg(DISTINCT release ORDER BY release) FILTER (WHERE release IS NOT NULL), '{}') AS releases,
           count(*)::int AS count, min(created_at) AS first_seen_at, max(created_at) AS last_seen_at
         FROM telemetry_errors WHERE ${where}
         GROUP BY fingerprint ORDER BY count DESC, last_seen_at DESC, fingerprint LIMIT $4 OFFSET $5`,
        [from, to, release, page.limit, page.offset],
      ),
      this.dataSource.query<{ n: number }[]>(
        `SELECT count(DISTINCT fingerprint)::int AS n FROM telemetry_errors WHERE ${where}`,
        [from, to, release],
      ),
    ]);
    return { rows, total: total[0].n };
  }

  /** Kept 30 days (21). */
  async prune(before: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM telemetry_vitals WHERE created_at < $1`, [before]);
    await this.dataSource.query(`DELETE FROM telemetry_errors WHERE created_at < $1`, [before]);
  }
}
