import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { baseDataSourceOptions } from './data-source-options';
import { EMBEDDED_MAX_CONNECTIONS, EmbeddedPostgres } from './embedded-postgres';
import { runMigrationsLocked } from './migrate';
import { PoolQueries } from './pool-queries';
import { guardedClient, organizationTables, TenancyGuard } from './tenancy-guard';
import { TransactionRunner } from './transaction';

const EMBEDDED = Symbol('EMBEDDED_POSTGRES');

/** Provides the embedded server (or null with DATABASE_URL) and stops it after TypeORM has closed its pool. */
@Module({
  providers: [
    {
      provide: EMBEDDED,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): EmbeddedPostgres | null =>
        config.database.url ? null : new EmbeddedPostgres(config.dataDir),
    },
  ],
  exports: [EMBEDDED],
})
class EmbeddedPostgresModule implements OnApplicationShutdown {
  constructor(@Inject(EMBEDDED) private readonly embedded: EmbeddedPostgres | null) {}

  async onApplicationShutdown(): Promise<void> {
    await this.embedded?.stop();
  }
}

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      imports: [EmbeddedPostgresModule],
      inject: [APP_CONFIG, EMBEDDED],
      useFactory: async (config: AppConfig, embedded: EmbeddedPostgres | null) => {
        const url = config.database.url ?? (await embedded!.start());
        const poolSize = config.database.url ? config.database.poolSize : EMBEDDED_MAX_CONNECTIONS;
        // Migrate before TypeORM's own data source opens, so nothing ever sees a half-migrated schema. The
        // migration lock is a session advisory lock: a direct connection, never a transaction-mode pooler.
        if (config.migrateOnStart) await migrate(config.database.directUrl ?? url);
        const base = baseDataSourceOptions(url, poolSize);
        const options = {
          ...base,
          extra: { ...(base.extra as object), Client: await tenancyGuardedClient(config, url) },
        };
        if (config.database.url) return { ...options, autoLoadEntities: true };
        // PGlite runs one transaction at a time: a query sent on another connection while a transaction is open
        // waits for it. Code must read through the transaction it is in (outside production the pool's client
        // refuses a statement that does not: open-transaction.ts); should a wait remain, this turns it into an
        // error instead of a hang.
        return { ...options, extra: { ...options.extra, query_timeout: 20_000 }, autoLoadEntities: true };
      },
    }),
  ],
  providers: [TransactionRunner, PoolQueries],
  exports: [TransactionRunner, PoolQueries],
})
export class DatabaseModule {}

/** Applies pending migrations under the advisory lock on a short-lived connection pool of two. */
async function migrate(url: string): Promise<void> {
  const dataSource = await new DataSource(baseDataSourceOptions(url, 2)).initialize();
  try {
    const applied = await runMigrationsLocked(dataSource);
    if (applied.length > 0) new Logger('Database').log(`Applied migrations: ${applied.map((m) => m.name).join(', ')}`);
  } finally {
    await dataSource.destroy();
  }
}

/** The pool's client class: every statement passes the tenancy guard, which knows the schema's organization tables. */
async function tenancyGuardedClient(config: AppConfig, url: string): Promise<ReturnType<typeof guardedClient>> {
  const mode = config.database.tenancyGuard;
  const tables = mode === 'off' ? new Set<string>() : await organizationTables(config.database.directUrl ?? url);
  return guardedClient(new TenancyGuard(tables, mode), { refuseOutsideTransaction: !config.isProduction });
}
