import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Social feed and moderation (extensions-v2 sections 11 and 12): one table of feed items (members' posts and the
 * activity items written by subscribers of domain events), comments, reactions, reports, the organization's
 * moderation settings and mutes, and per-person counters of feed items that make a page's `total` cheap.
 */
export class Social1763755000000 implements MigrationInterface {
  name = 'Social1763755000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE moderation_settings (
        organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
        feed_enabled boolean NOT NULL DEFAULT true,
        pre_moderation boolean NOT NULL DEFAULT false,
        auto_hide_after_reports integer NOT NULL DEFAULT 3 CHECK (auto_hide_after_reports BETWEEN 1 AND 20),
        blocked_terms text[] NOT NULL DEFAULT '{}' CHECK (cardinality(blocked_terms) <= 200),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    // Posts and activity items in one table: the feed is one ordered index scan. Activity items are `published`
    // forever; whether they are shown depends on their subject's profile at read time (11.1).
    await q.query(`
      CREATE TABLE feed_items (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('post', 'course_completed', 'badge_earned', 'certificate_issued',
          'program_completed', 'level_reached', 'streak_milestone')),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        activity jsonb NULL,
        source_event_id uuid NULL,
        body_md text NULL CHECK (char_length(body_md) BETWEEN 1 AND 2000),
        body_html text NULL,
        status text NOT NULL DEFAULT 'published' CHECK (status IN ('published', 'pending', 'hidden', 'removed')),
        pending_reason text NULL CHECK (pending_reason IN ('pre_moderation', 'blocked_term')),
        edited_at timestamptz NULL,
        published_at timestamptz NULL,
        CHECK ((kind = 'post') = (body_md IS NOT NULL AND body_html IS NOT NULL)),
        CHECK ((kind = 'post') = (activity IS NULL)),
        CHECK (kind = 'post' OR status = 'published')
      )`);
    await q.query(`CREATE INDEX feed_items_page_idx ON feed_items (organization_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX feed_items_user_idx ON feed_items (user_id)`);
    // One activity item per event, whatever the redeliveries.
    await q.query(
      `CREATE UNIQUE INDEX feed_items_source_uq ON feed_items (source_event_id) WHERE source_event_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX feed_items_queue_idx ON feed_items (organization_id, created_at) WHERE status IN ('pending', 'hidden')`,
    );

    await q.query(`
      CREATE TABLE feed_comments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        post_id uuid NOT NULL REFERENCES feed_items (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        body_md text NOT NULL CHECK (char_length(body_md) BETWEEN 1 AND 1000),
        body_html text NOT NULL,
        status text NOT NULL DEFAULT 'published' CHECK (status IN ('published', 'pending', 'hidden', 'removed')),
        pending_reason text NULL CHECK (pending_reason IN ('pre_moderation', 'blocked_term')),
        created_at timestamptz NOT NULL,
        edited_at timestamptz NULL,
        published_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX feed_comments_post_idx ON feed_comments (post_id, created_at, id)`);
    await q.query(`CREATE INDEX feed_comments_user_idx ON feed_comments (user_id)`);
    await q.query(
      `CREATE INDEX feed_comments_queue_idx ON feed_comments (organization_id, created_at) WHERE status IN ('pending', 'hidden')`,
    );

    await q.query(`
      CREATE TABLE feed_reactions (
        item_id uuid NOT NULL REFERENCES feed_items (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('like', 'celebrate', 'insightful', 'support')),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (item_id, user_id, kind)
      )`);
    await q.query(`CREATE INDEX feed_reactions_user_idx ON feed_reactions (user_id)`);

    await q.query(`
      CREATE TABLE feed_reports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        item_type text NOT NULL CHECK (item_type IN ('post', 'comment')),
        post_id uuid NOT NULL REFERENCES feed_items (id) ON DELETE CASCADE,
        comment_id uuid NULL REFERENCES feed_comments (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        reason text NOT NULL CHECK (reason IN ('spam', 'harassment', 'inappropriate', 'misinformation', 'other')),
        details text NULL CHECK (char_length(details) <= 500),
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'dismissed', 'upheld')),
        created_at timestamptz NOT NULL,
        decided_at timestamptz NULL,
        CHECK ((item_type = 'comment') = (comment_id IS NOT NULL))
      )`);
    // One report per person and item, whatever became of it.
    await q.query(
      `CREATE UNIQUE INDEX feed_reports_post_uq ON feed_reports (post_id, user_id) WHERE item_type = 'post'`,
    );
    await q.query(
      `CREATE UNIQUE INDEX feed_reports_comment_uq ON feed_reports (comment_id, user_id) WHERE item_type = 'comment'`,
    );
    await q.query(`CREATE INDEX feed_reports_user_idx ON feed_reports (user_id)`);
    await q.query(`CREATE INDEX feed_reports_open_idx ON feed_reports (organization_id) WHERE status = 'open'`);

    await q.query(`
      CREATE TABLE member_mutes (
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        until timestamptz NOT NULL,
        reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
        muted_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, user_id)
      )`);
    await q.query(`CREATE INDEX member_mutes_muted_by_idx ON member_mutes (muted_by) WHERE muted_by IS NOT NULL`);

    // The page's total without counting a million rows: feed items per (organization, person, post or activity,
    // status), kept by a trigger so that every write (the service's, a cascade from an erased person or a deleted
    // organization) keeps it exact in the same transaction. The read sums a few rows per person, filtered by the
    // same visibility rule as the page.
    await q.query(`
      CREATE TABLE feed_counts (
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        is_post boolean NOT NULL,
        status text NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (organization_id, user_id, is_post, status)
      )`);
    await q.query(`
      CREATE FUNCTION feed_items_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          UPDATE feed_counts SET n = n - 1
           WHERE organization_id = OLD.organization_id AND user_id = OLD.user_id
             AND is_post = (OLD.kind = 'post') AND status = OLD.status;
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN
          INSERT INTO feed_counts (organization_id, user_id, is_post, status, n)
          VALUES (NEW.organization_id, NEW.user_id, NEW.kind = 'post', NEW.status, 1)
          ON CONFLICT (organization_id, user_id, is_post, status) DO UPDATE SET n = feed_counts.n + 1;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER feed_items_count AFTER INSERT OR DELETE OR UPDATE OF status ON feed_items
      FOR EACH ROW EXECUTE FUNCTION feed_items_count()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS feed_items_count ON feed_items`);
    await q.query(`DROP FUNCTION IF EXISTS feed_items_count()`);
    for (const table of [
      'feed_counts',
      'member_mutes',
      'feed_reports',
      'feed_reactions',
      'feed_comments',
      'feed_items',
      'moderation_settings',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
