import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';

/**
 * Hot reads sent straight to the driver's pool, outside TypeORM. With named statements on (the default), each is
 * parsed and planned once per connection. A named statement lives in a server session: behind PgBouncer in
 * transaction mode before 1.21 the next use may land on another server connection that never saw it
 * ("prepared statement does not exist"), so `DATABASE_NAMED_STATEMENTS=false` sends the same text unnamed
 * (parsed on every call; its cost is measured in bench/README.md). The embedded database never names them.
 */
@Injectable()
export class PoolQueries {
  readonly named: boolean;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.named = config.database.namedStatements;
  }

  async query<T extends object>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    const result = await pool.query<T>(this.named ? { name, text, values } : { text, values });
    return result.rows;
  }
}
