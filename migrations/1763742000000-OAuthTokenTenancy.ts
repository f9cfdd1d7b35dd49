import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Authorization codes and refresh tokens carry the organization of their grant, so every read of a grant from a
 * presented code or token filters by the organization like any other tenant data. The pair (grant, organization)
 * is a foreign key: a code or token can never name another organization than its grant's.
 */
export class OAuthTokenTenancy1763742000000 implements MigrationInterface {
  name = 'OAuthTokenTenancy1763742000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE oauth_grants ADD CONSTRAINT oauth_grants_id_org_uq UNIQUE (id, organization_id)`);
    for (const table of ['oauth_codes', 'oauth_refresh_tokens']) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN organization_id uuid NULL`);
      await q.query(
        `UPDATE ${table} t SET organization_id = g.organization_id FROM oauth_grants g WHERE g.id = t.grant_id`,
      );
      await q.query(`ALTER TABLE ${table} ALTER COLUMN organization_id SET NOT NULL`);
      await q.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_grant_org_fk FOREIGN KEY (grant_id, organization_id)
           REFERENCES oauth_grants (id, organization_id) ON DELETE CASCADE`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['oauth_refresh_tokens', 'oauth_codes']) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_grant_org_fk`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN organization_id`);
    }
    await q.query(`ALTER TABLE oauth_grants DROP CONSTRAINT oauth_grants_id_org_uq`);
  }
}
