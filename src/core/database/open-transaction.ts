import { AsyncLocalStorage } from 'node:async_hooks';

/** The connection of the transaction a piece of work runs in, while that transaction is open. */
interface OpenTransaction {
  readonly connection: unknown;
  open: boolean;
}

const current = new AsyncLocalStorage<OpenTransaction>();

/**
 * Runs `work` as the body of the transaction on `connection`: its async descendants know the transaction until
 * `work` settles. Work it starts and does not await, running after that, is outside it again.
 */
export async function asTransactionBody<T>(connection: unknown, work: () => Promise<T>): Promise<T> {
  const transaction: OpenTransaction = { connection, open: true };
  try {
    return await current.run(transaction, work);
  } finally {
    transaction.open = false;
  }
}

/**
 * Whether a statement about to run on `connection` comes from inside an open transaction that runs on another
 * connection. Such a statement reads outside the transaction (it does not see its writes) and holds a second pool
 * connection; on the embedded database, which runs one transaction at a time, it waits for the transaction that is
 * waiting for it, until the query timeout answers 503.
 */
export function outsideOpenTransaction(connection: unknown): boolean {
  const transaction = current.getStore();
  return transaction !== undefined && transaction.open && transaction.connection !== connection;
}
