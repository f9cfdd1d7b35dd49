import { randomUUID } from 'node:crypto';
import { TransactionRunner } from '@/core/database/transaction';
import { createIntegration, type Integration } from '../../support/integration';

/**
 * A statement sent on the pool while the caller's transaction is open reads outside it, and on the embedded database
 * (one transaction at a time) waits for the transaction that waits for it: a course rating answered 503 after the
 * 20 s query timeout once a notification subscriber read a course title that way. Outside production the pool's
 * client refuses such a statement at once.
 */
/** TypeORM wraps the client's refusal (`OutsideTransactionError`) in its QueryFailedError, with the message. */
const OUTSIDE =
  /^OutsideTransactionError: A statement ran on another pool connection while its caller's transaction is open/;

describe('statements outside the open transaction (integration)', () => {
  let it_: Integration;
  let transactions: TransactionRunner;

  beforeAll(async () => {
    it_ = await createIntegration({ providers: [] });
    transactions = it_.get(TransactionRunner);
    await it_.db.query(`CREATE TABLE probe_rows (name text NOT NULL)`);
  });

  afterAll(async () => {
    await it_?.close();
  });

  const rows = async (name: string): Promise<number> =>
    Number((await it_.db.query(`SELECT count(*) AS n FROM probe_rows WHERE name = $1`, [name]))[0].n);

  it('refuses a pool statement from inside a transaction, and the transaction rolls back', async () => {
    const name = `outside-${randomUUID()}`;
    const started = Date.now();
    await expect(
      transactions.run(async (tx) => {
        await tx.manager.query(`INSERT INTO probe_rows VALUES ($1)`, [name]);
        await it_.db.query(`SELECT 1`);
      }),
    ).rejects.toThrow(OUTSIDE);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await rows(name)).toBe(0);
    await transactions.run((tx) => tx.manager.query(`INSERT INTO probe_rows VALUES ($1)`, [name]));
    expect(await rows(name)).toBe(1);
  });

  it('names the statement in the error', async () => {
    await expect(
      transactions.run(async () => {
        await it_.db.query(`SELECT 'a statement'   AS   spaced`);
      }),
    ).rejects.toThrow(/pass the transaction to the repository\. Statement: SELECT 'a statement' AS spaced/);
  });

  it('accepts statements through the transaction, in parallel reads on the pool outside it, and after it', async () => {
    let later: Promise<unknown> | undefined;
    const answer = await transactions.run(async (tx) => {
      const [row] = await tx.manager.query<{ n: number }[]>(`SELECT 41 + 1 AS n`);
      // Work the transaction starts without awaiting, running once it has ended, is outside it again.
      later = new Promise((resolve) => setTimeout(resolve, 50)).then(() => it_.db.query(`SELECT 2 AS n`));
      return row.n;
    });
    expect(answer).toBe(42);
    await expect(later).resolves.toEqual([{ n: 2 }]);
    await expect(Promise.all([it_.db.query(`SELECT 1 AS n`), it_.db.query(`SELECT 1 AS n`)])).resolves.toHaveLength(2);
  });

  it('refuses a second transaction opened from inside the first (it would wait for the first on PGlite)', async () => {
    await expect(
      transactions.run(() => transactions.run(async (inner) => inner.manager.query(`SELECT 1`))),
    ).rejects.toThrow(OUTSIDE);
  });

  it('refuses a pool statement from inside a read-only snapshot', async () => {
    await expect(transactions.snapshot(async () => it_.db.query(`SELECT 1`))).rejects.toThrow(OUTSIDE);
    await expect(transactions.snapshot(async (manager) => manager.query(`SELECT 3 AS n`))).resolves.toEqual([{ n: 3 }]);
  });
});
