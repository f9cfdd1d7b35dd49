import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';

/** Connections the embedded server accepts; the pool uses the same number. */
export const EMBEDDED_MAX_CONNECTIONS = 4;

/**
 * PostgreSQL compiled to WebAssembly (PGlite), kept under DATA_DIR and served on a loopback port so the
 * ordinary `pg` driver and TypeORM talk to it exactly as to a real server. Used when DATABASE_URL is unset,
 * never in production.
 */
export class EmbeddedPostgres {
  private readonly logger = new Logger('EmbeddedPostgres');
  private db?: { close(): Promise<void> };
  private server?: { stop(): Promise<void> };

  constructor(private readonly dataDir: string) {}

  async start(): Promise<string> {
    const dir = join(this.dataDir, 'pg');
    mkdirSync(dir, { recursive: true });
    const [{ PGlite }, { PGLiteSocketServer }, { uuid_ossp }, { unaccent }, { pg_trgm }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('@electric-sql/pglite-socket'),
      import('@electric-sql/pglite/contrib/uuid_ossp'),
      import('@electric-sql/pglite/contrib/unaccent'),
      import('@electric-sql/pglite/contrib/pg_trgm'),
    ]);
    const db = await PGlite.create({ dataDir: dir, extensions: { uuid_ossp, unaccent, pg_trgm } });
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: EMBEDDED_MAX_CONNECTIONS });
    await server.start();
    this.db = db;
    this.server = server;
    const url = `postgres://postgres@${server.getServerConn()}/postgres`;
    this.logger.log(`Embedded PostgreSQL (PGlite) in ${dir}`);
    return url;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    await this.db?.close();
    this.server = undefined;
    this.db = undefined;
  }
}
