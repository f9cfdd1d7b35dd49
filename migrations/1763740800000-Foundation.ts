import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Background-job outbox and the audit log. */
export class Foundation1763740800000 implements MigrationInterface {
  name = 'Foundation1763740800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE jobs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        queue text NOT NULL,
        name text NOT NULL,
        organization_id uuid NULL,
        payload jsonb NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        max_attempts integer NOT NULL CHECK (max_attempts >= 1),
        run_after timestamptz NOT NULL DEFAULT now(),
        dedupe_key text NULL,
        last_error text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX jobs_dedupe_key_uq ON jobs (dedupe_key) WHERE dedupe_key IS NOT NULL`);
    await q.query(`CREATE INDEX jobs_unfinished_idx ON jobs (updated_at) WHERE status IN ('pending', 'running')`);
    await q.query(`CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE status IN ('completed', 'failed')`);

    await q.query(`
      CREATE TABLE audit_log (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        action text NOT NULL,
        actor_id uuid NULL,
        organization_id uuid NULL,
        target_type text NULL,
        target_id text NULL,
        ip_fingerprint text NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX audit_log_org_created_idx ON audit_log (organization_id, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX audit_log_org_action_created_idx ON audit_log (organization_id, action, created_at DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_log`);
    await q.query(`DROP TABLE jobs`);
  }
}
