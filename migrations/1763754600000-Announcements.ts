import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Announcements (extensions-v2 18): platform ones (`organization_id` null) and organization ones, with their
 * audience, window and email state; and who dismissed what. Consents become a history with withdrawals (17.2):
 * the announcement email reads the latest `product_updates_email` row.
 */
export class Announcements1763754600000 implements MigrationInterface {
  name = 'Announcements1763754600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE announcements (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NULL REFERENCES organizations (id) ON DELETE CASCADE,
        translations jsonb NOT NULL,
        severity text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
        audience_roles text[] NOT NULL DEFAULT '{}'
          CHECK (audience_roles <@ ARRAY['owner', 'admin', 'teacher', 'student']::text[]),
        audience_organization_ids uuid[] NOT NULL DEFAULT '{}',
        audience_cohort_ids uuid[] NOT NULL DEFAULT '{}',
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NULL,
        dismissible boolean NOT NULL,
        email boolean NOT NULL DEFAULT false,
        emailed_at timestamptz NULL,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK (ends_at IS NULL OR ends_at > starts_at),
        CHECK (severity <> 'critical' OR NOT dismissible),
        -- Organization lists belong to platform announcements, cohort lists to organization ones.
        CHECK (organization_id IS NULL OR cardinality(audience_organization_ids) = 0),
        CHECK (organization_id IS NOT NULL OR cardinality(audience_cohort_ids) = 0)
      )`);
    // Current announcements and the admin lists (newest start first), platform and per organization; the status
    // filter "ended" reads ends_at.
    await q.query(
      `CREATE INDEX announcements_platform_idx ON announcements (starts_at DESC, id DESC) WHERE organization_id IS NULL`,
    );
    await q.query(
      `CREATE INDEX announcements_org_idx ON announcements (organization_id, starts_at DESC, id DESC)
       WHERE organization_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX announcements_ends_idx ON announcements (organization_id, ends_at) WHERE ends_at IS NOT NULL`,
    );
    await q.query(`CREATE INDEX announcements_created_by_idx ON announcements (created_by)`);

    // A dismissal of an organization's announcement is per member: leaving the organization removes it.
    await q.query(`
      CREATE TABLE announcement_dismissals (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        announcement_id uuid NOT NULL REFERENCES announcements (id) ON DELETE CASCADE,
        organization_id uuid NULL,
        dismissed_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, announcement_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX announcement_dismissals_announcement_idx ON announcement_dismissals (announcement_id)`);
    await q.query(
      `CREATE INDEX announcement_dismissals_member_idx ON announcement_dismissals (organization_id, user_id)
       WHERE organization_id IS NOT NULL`,
    );

    // The notifications area adds the same column for withdrawals by unsubscribe; whichever runs first adds it.
    await q.query(`ALTER TABLE consents ADD COLUMN IF NOT EXISTS granted boolean NOT NULL DEFAULT true`);
  }

  async down(q: QueryRunner): Promise<void> {
    // consents.granted is left in place: the notifications area's migration may own it.
    await q.query(`DROP TABLE announcement_dismissals`);
    await q.query(`DROP TABLE announcements`);
  }
}
