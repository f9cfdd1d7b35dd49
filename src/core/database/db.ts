import type { DataSource, EntityManager } from 'typeorm';
import type { Tx } from './transaction';

/**
 * The manager a repository query runs on: the caller's transaction when there is one, else the pool. Reads
 * inside a transaction must go through it (consistency, and embedded PGlite runs one transaction at a time).
 */
export function db(dataSource: DataSource, tx?: Tx | null): EntityManager {
  return tx?.manager ?? dataSource.manager;
}

/**
 * Runs independent reads: together on the pool, one after another inside a transaction, whose single connection
 * takes one query at a time (pg 8 queues the rest with a deprecation warning; pg 9 refuses them).
 */
export async function readAll<T extends readonly unknown[]>(
  tx: Tx | null | undefined,
  reads: { readonly [K in keyof T]: () => Promise<T[K]> },
): Promise<T> {
  if (!tx) return (await Promise.all(reads.map((read) => read()))) as unknown as T;
  const results: unknown[] = [];
  for (const read of reads) results.push(await read());
  return results as unknown as T;
}
