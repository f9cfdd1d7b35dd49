import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { asTransactionBody } from './open-transaction';

/**
 * A unit of work: the EntityManager every repository call inside it must use, plus hooks that run only
 * once the transaction has committed (dispatching background jobs, for instance).
 */
export interface Tx {
  readonly manager: EntityManager;
  afterCommit(hook: () => void | Promise<void>): void;
}

@Injectable()
export class TransactionRunner {
  private readonly logger = new Logger('Transaction');

  constructor(private readonly dataSource: DataSource) {}

  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const hooks: (() => void | Promise<void>)[] = [];
    const result = await this.dataSource.transaction((manager) =>
      asTransactionBody(connectionOf(manager), () => work({ manager, afterCommit: (hook) => void hooks.push(hook) })),
    );
    for (const hook of hooks) {
      try {
        await hook();
      } catch (err) {
        // The transaction is committed; a failed hook must not turn the request into an error.
        this.logger.error({ err }, 'After-commit hook failed');
      }
    }
    return result;
  }

  /**
   * A read-only snapshot (REPEATABLE READ READ ONLY): every read of `work` sees one consistent state, as a long
   * export needs, and a write inside it fails.
   */
  async snapshot<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      await manager.query('SET TRANSACTION READ ONLY');
      return asTransactionBody(connectionOf(manager), () => work(manager));
    });
  }
}

/** The pool connection (pg client) a transaction's manager runs on. */
function connectionOf(manager: EntityManager): unknown {
  return (manager.queryRunner as { databaseConnection?: unknown } | undefined)?.databaseConnection;
}

/**
 * Runs `work` under a savepoint of `tx`: when it throws, only its own writes are undone and the transaction
 * goes on (one bad row of a batch does not roll back the others); the error is rethrown to the caller.
 */
export async function withSavepoint<T>(tx: Tx, work: () => Promise<T>): Promise<T> {
  await tx.manager.query('SAVEPOINT unit');
  try {
    const result = await work();
    await tx.manager.query('RELEASE SAVEPOINT unit');
    return result;
  } catch (err) {
    await tx.manager.query('ROLLBACK TO SAVEPOINT unit');
    throw err;
  }
}
