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
    const server = new PGLiteSocketServer({
      db: oneExchangeAtATime(db),
      host: '127.0.0.1',
      port: 0,
      maxConnections: EMBEDDED_MAX_CONNECTIONS,
    });
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

/** Frontend message types that end an exchange: Sync (extended protocol) and Query (simple protocol). */
const EXCHANGE_END = new Set(['S'.charCodeAt(0), 'Q'.charCodeAt(0)]);

/**
 * pglite-socket queues each frontend message of every connection into the one PGlite session and keeps a connection
 * exclusive only while a transaction is open. Outside one, the Parse of one connection could be followed by the
 * Bind of another: both use the session's unnamed statement, so a query ran with another's parameters ("bind
 * message supplies 2 parameters, but prepared statement requires 1"). Its queue already keeps serving the same
 * connection while `isInTransaction()` is true; this view of the database also answers true from the first message
 * of an extended-protocol exchange until its Sync, so an exchange is never interleaved with another connection's.
 */
function oneExchangeAtATime<T extends object>(db: T): T {
  let midExchange = false;
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'isInTransaction') {
        return () => midExchange || (target as { isInTransaction(): boolean }).isInTransaction();
      }
      if (prop === 'execProtocolRawStream') {
        const exec = (target as { execProtocolRawStream: (m: Uint8Array, o: unknown) => Promise<unknown> })
          .execProtocolRawStream;
        return async (message: Uint8Array, options: unknown) => {
          const ends = EXCHANGE_END.has(message[0]);
          if (!ends) midExchange = true;
          try {
            return await exec.call(target, message, options);
          } finally {
            if (ends) midExchange = false;
          }
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
