import { createServer, type Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';

/** The pg pool behind TypeORM's driver (absent in drivers without one). */
interface PgPoolLike {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_SECONDS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900];

/**
 * Prometheus metrics of this process (prom-client): HTTP requests by route template, status and duration; jobs by
 * queue (runs, failures, durations, and the outbox's depth and lag read from PostgreSQL at scrape time, so every
 * instance reports the same shared figures); domain-event deliveries pending and their lag; the database pool;
 * event-loop lag and memory (prom-client's default process metrics). Exposed at `GET /metrics` behind
 * `METRICS_TOKEN`, or on `METRICS_PORT` (a separate listener, also in the worker process).
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly registry = new Registry();
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;

  private readonly http = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly jobRuns = new Histogram({
    name: 'job_duration_seconds',
    help: 'Tries of background jobs by queue, job and outcome (completed, failed)',
    labelNames: ['queue', 'job', 'outcome'] as const,
    buckets: JOB_SECONDS,
    registers: [this.registry],
  });
  private readonly jobFailures = new Counter({
    name: 'job_failures_total',
    help: 'Failed tries of background jobs by queue and job; final="true" when no try is left',
    labelNames: ['queue', 'job', 'final'] as const,
    registers: [this.registry],
  });

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
  ) {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
    const db = this.dataSource;
    const pool = (): PgPoolLike | null => {
      const master = (db.driver as unknown as { master?: PgPoolLike }).master;
      return master && typeof master.totalCount === 'number' ? master : null;
    };
    new Gauge({
      name: 'db_pool_connections',
      help: 'Connections of this process’s database pool by state (idle, busy, waiting requests)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const p = pool();
        if (!p) return;
        this.set({ state: 'idle' }, p.idleCount);
        this.set({ state: 'busy' }, p.totalCount - p.idleCount);
        this.set({ state: 'waiting' }, p.waitingCount);
      },
    });
    const jobsDepth = new Gauge({
      name: 'jobs_depth',
      help: 'Outbox jobs not finished, by queue and status (pending, running): shared by every instance',
      labelNames: ['queue', 'status'] as const,
      registers: [this.registry],
    });
    const jobsLag = new Gauge({
      name: 'jobs_oldest_due_seconds',
      help: 'Age of the oldest pending job that is due, by queue (0 when none): the outbox lag',
      labelNames: ['queue'] as const,
      registers: [this.registry],
    });
    const events = new Gauge({
      name: 'domain_event_deliveries',
      help: 'Domain-event deliveries by status (pending, failed), and the age of the oldest due one (lag_seconds)',
      labelNames: ['status'] as const,
      registers: [this.registry],
    });
    // One scrape reads the shared figures once, whichever gauge asks first.
    let reading: Promise<void> | null = null;
    const readShared = (): Promise<void> => {
      reading ??= this.readShared(jobsDepth, jobsLag, events).finally(() => (reading = null));
      return reading;
    };
    for (const gauge of [jobsDepth, jobsLag, events]) {
      (gauge as unknown as { collect: () => Promise<void> }).collect = readShared;
    }
  }

  /** One finished request (`observeRequests` in core/logging measures it once for the log line and for this). */
  observeHttp(req: Request, res: Response, seconds: number): void {
    const route = req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'unmatched';
    this.http.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
  }

  /** Called by the job runner after each try. */
  jobTried(queue: string, job: string, seconds: number, failure: null | { final: boolean }): void {
    this.jobRuns.observe({ queue, job, outcome: failure ? 'failed' : 'completed' }, seconds);
    if (failure) this.jobFailures.inc({ queue, job, final: String(failure.final) });
  }

  /** Whether `Authorization` carries the configured metrics token (compared in constant time). */
  authorized(header: string | undefined): boolean {
    const token = this.config.metrics.token;
    if (!token || !header?.startsWith('Bearer ')) return false;
    const given = Buffer.from(header.slice(7).trim());
    const expected = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  async onApplicationBootstrap(): Promise<void> {
    const { port, host } = this.config.metrics;
    if (port === null) return;
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
        return;
      }
      this.render().then(
        ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body),
        (err: unknown) => {
          this.logger.error({ err }, 'Metrics scrape failed');
          res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Metrics unavailable\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    this.logger.log({ port, host }, 'Metrics listening');
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The address of the separate metrics listener, when one runs (tests). */
  listenerPort(): number | null {
    const address = this.server?.address();
    return address && typeof address === 'object' ? address.port : null;
  }

  private async readShared(jobsDepth: Gauge, jobsLag: Gauge, events: Gauge): Promise<void> {
    const [jobs, lag, deliveries] = await Promise.all([
      this.dataSource.query<{ queue: string; status: string; n: string }[]>(
        `SELECT queue, status, count(*) AS n FROM jobs WHERE status IN ('pending', 'running') GROUP BY queue, status`,
      ),
      this.dataSource.query<{ queue: string; seconds: number }[]>(
        `SELECT queue, EXTRACT(EPOCH FROM now() - min(run_after))::float8 AS seconds
           FROM jobs WHERE status = 'pending' AND run_after <= now() GROUP BY queue`,
      ),
      this.dataSource.query<{ pending: string; failed: string; lag: number | null }[]>(
        `SELECT count(*) FILTER (WHERE status = 'pending') AS pending,
                count(*) FILTER (WHERE status = 'failed') AS failed,
                EXTRACT(EPOCH FROM now() - min(run_after) FILTER (WHERE status = 'pending' AND run_after <= now()))::float8 AS lag
           FROM domain_event_deliveries WHERE status IN ('pending', 'failed')`,
      ),
    ]);
    jobsDepth.reset();
    for (const row of jobs) jobsDepth.set({ queue: row.queue, status: row.status }, Number(row.n));
    jobsLag.reset();
    for (const row of lag) jobsLag.set({ queue: row.queue }, Math.max(0, row.seconds));
    const d = deliveries[0];
    events.set({ status: 'pending' }, Number(d?.pending ?? 0));
    events.set({ status: 'failed' }, Number(d?.failed ?? 0));
    events.set({ status: 'lag_seconds' }, Math.max(0, d?.lag ?? 0));
  }
}
