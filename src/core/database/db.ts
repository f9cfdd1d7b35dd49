import type { DataSource, EntityManager } from 'typeorm';
import type { Tx } from './transaction';

/**
 * The manager a repository query runs on: the caller's transaction when there is one, else the pool. Reads
 * inside a transaction must go through it (consistency, and embedded PGlite runs one transaction at a time).
 */
export function db(dataSource: DataSource, tx?: Tx | null): EntityManager {
  return tx?.manager ?? dataSource.manager;
}
