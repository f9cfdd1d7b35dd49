import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last read views (issue 24, "Owned tables"): the columns the LTI and SCIM areas need of other areas' tables,
 * and SCIM's directory attributes for the member views, so no area reads another's table but through its views.
 *
 * `CREATE OR REPLACE VIEW` may only append columns to a view, so each existing view keeps its current column list
 * (ReadViews1795917055499, then MoreReadViews1795928717247) first and appends the new ones; `down` restores that
 * list (PostgreSQL cannot drop a view's column, so it drops and recreates the view).
 */
const EXTENDED: Record<string, { table: string; before: string[]; added: string[] }> = {
  // tenancy/organizations: the SCIM suspension (SCIM's `active`, the LTI roster's `suspended` flag)
  memberships_read: {
    table: 'memberships',
    before: ['organization_id', 'user_id', 'role', 'joined_at'],
    added: ['suspended_at'],
  },
  // tenancy/cohorts: SCIM's group `meta`
  cohorts_read: {
    table: 'cohorts',
    before: ['id', 'organization_id', 'name', 'institute_id'],
    added: ['created_at', 'updated_at'],
  },
};

const CREATED: Record<string, { table: string; columns: string[] }> = {
  // tenancy/scim: the directory's attributes of a member (the member views)
  scim_members_read: {
    table: 'scim_members',
    columns: [
      'organization_id',
      'user_id',
      'user_name',
      'external_id',
      'given_name',
      'family_name',
      'display_name',
      'directory',
    ],
  },
};

export class DirectoryReadViews1795929000000 implements MigrationInterface {
  name = 'DirectoryReadViews1795929000000';

  async up(q: QueryRunner): Promise<void> {
    for (const [view, { table, before, added }] of Object.entries(EXTENDED)) {
      await q.query(`CREATE OR REPLACE VIEW ${view} AS SELECT ${[...before, ...added].join(', ')} FROM ${table}`);
    }
    for (const [view, { table, columns }] of Object.entries(CREATED)) {
      await q.query(`CREATE VIEW ${view} AS SELECT ${columns.join(', ')} FROM ${table}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const view of Object.keys(CREATED).reverse()) {
      await q.query(`DROP VIEW IF EXISTS ${view}`);
    }
    for (const [view, { table, before }] of Object.entries(EXTENDED)) {
      await q.query(`DROP VIEW IF EXISTS ${view}`);
      await q.query(`CREATE VIEW ${view} AS SELECT ${before.join(', ')} FROM ${table}`);
    }
  }
}
