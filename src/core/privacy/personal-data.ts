import { Injectable, type OnModuleInit, SetMetadata } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import type { EntityManager } from 'typeorm';
import type { Tx } from '@/core/database/transaction';
import { PERSONAL_DATA_EXEMPTIONS } from './exemptions';

/** One exported record: a row as JSON (ids, values and times; never hashes, secrets or other people's data). */
export type ExportedRow = Record<string, unknown>;

export interface EraseContext {
  readonly userId: string;
  readonly tx: Tx;
  readonly now: Date;
  /** The person chose to keep their name on issued certificates (extensions-v2 17.3). */
  readonly keepCertificateNames: boolean;
}

/**
 * What an area provides for each table (or group of tables) that holds a person's data: every row of the person as
 * JSON for the export, and the area's own erasure rule (delete, anonymize, or keep with a reason, extensions-v2
 * 17.4). Both must be idempotent and must touch nothing of anyone else.
 */
export interface PersonalDataHandler {
  export(userId: string, db: EntityManager): AsyncIterable<ExportedRow> | Promise<ExportedRow[]>;
  erase(ctx: EraseContext): Promise<void>;
}

export interface PersonalDataOptions {
  /** The export file it belongs to (`learning` -> `learning.json`), extensions-v2 17.3. */
  readonly area: string;
  /** Its section inside that file. */
  readonly key: string;
  /** The tables it covers: a test fails when a table with personal columns is in no handler's list. */
  readonly tables: readonly string[];
  /** Erasers run in ascending order (default 100): what references a row goes before the row. */
  readonly eraseOrder?: number;
}

export const PERSONAL_DATA = Symbol('PERSONAL_DATA');

/**
 * Registers a provider as the personal-data handler of its tables. The area that creates a table registers it
 * the same day (DESIGN.md).
 */
export const PersonalData = (options: PersonalDataOptions): ClassDecorator => SetMetadata(PERSONAL_DATA, options);

export interface RegisteredHandler extends PersonalDataOptions {
  readonly eraseOrder: number;
  readonly handler: PersonalDataHandler;
}

/** Every registered handler, found by discovery at start. */
@Injectable()
export class PersonalDataRegistry implements OnModuleInit {
  private registered: RegisteredHandler[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const found: RegisteredHandler[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as PersonalDataHandler | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.metatype) continue;
      const options = this.reflector.get<PersonalDataOptions | undefined>(PERSONAL_DATA, wrapper.metatype);
      if (!options) continue;
      if (typeof instance.export !== 'function' || typeof instance.erase !== 'function') {
        throw new Error(`${wrapper.name}: a @PersonalData provider needs export() and erase()`);
      }
      if (found.some((h) => h.area === options.area && h.key === options.key)) {
        throw new Error(`Personal data ${options.area}.${options.key} is registered twice`);
      }
      found.push({ ...options, eraseOrder: options.eraseOrder ?? 100, handler: instance });
    }
    this.registered = found.sort((a, b) => a.eraseOrder - b.eraseOrder || a.area.localeCompare(b.area));
  }

  /** In erasure order. */
  handlers(): readonly RegisteredHandler[] {
    return this.registered;
  }

  /** Export files and their sections, by area name. */
  byArea(): ReadonlyMap<string, readonly RegisteredHandler[]> {
    const map = new Map<string, RegisteredHandler[]>();
    for (const h of [...this.registered].sort((a, b) => a.area.localeCompare(b.area) || a.key.localeCompare(b.key))) {
      map.set(h.area, [...(map.get(h.area) ?? []), h]);
    }
    return map;
  }

  /** Each covered table with the handlers that cover it. */
  coveredTables(): ReadonlyMap<string, string[]> {
    const map = new Map<string, string[]>();
    for (const h of this.registered) {
      for (const t of h.tables) map.set(t, [...(map.get(t) ?? []), `${h.area}.${h.key}`]);
    }
    return map;
  }

  exemptions(): Readonly<Record<string, string>> {
    return PERSONAL_DATA_EXEMPTIONS;
  }
}

let cursorCounter = 0;

/**
 * An exporter's rows, fetched in batches: inside a transaction (the export job's snapshot) through a server-side
 * cursor, so a person with many rows never has them all in memory at once; outside one (tests, ad-hoc calls) as a
 * single query. `sql` is any SELECT with its parameters.
 */
export async function* streamRows(
  db: EntityManager,
  sql: string,
  params: readonly unknown[],
  batch = 2_000,
): AsyncIterable<ExportedRow> {
  if (!db.queryRunner?.isTransactionActive) {
    yield* await db.query<ExportedRow[]>(sql, [...params]);
    return;
  }
  const cursor = `personal_export_${++cursorCounter}`;
  await db.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${sql}`, [...params]);
  try {
    for (;;) {
      const rows = await db.query<ExportedRow[]>(`FETCH FORWARD ${batch} FROM ${cursor}`);
      yield* rows;
      if (rows.length < batch) return;
    }
  } finally {
    await db.query(`CLOSE ${cursor}`).catch(() => undefined);
  }
}

/** Collects an export's rows whatever the handler returns. */
export async function collectRows(source: AsyncIterable<ExportedRow> | Promise<ExportedRow[]>): Promise<ExportedRow[]> {
  if (source instanceof Promise) return await source;
  const rows: ExportedRow[] = [];
  for await (const row of source) rows.push(row);
  return rows;
}

/** Columns that make a table hold personal data (the registry test looks for them in every table). */
export const PERSONAL_COLUMN =
  /(^|_)(user_id|email)$|^(actor_id|author_id|holder_name|created_by|requested_by|graded_by|impersonator_id|invited_by|accepted_by|reviewed_by|muted_by)$/;
