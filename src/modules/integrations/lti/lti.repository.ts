import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { OrgRole } from '@/core/auth/tenancy';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { visibleTo } from '@/modules/learning/courses';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface PlatformKeyRow {
  kid: string;
  public_jwk: Record<string, unknown>;
  private_key_sealed: string;
  created_at: Date;
  retired_at: Date | null;
}

export interface ToolRow {
  id: string;
  name: string;
  description: string | null;
  client_id: string;
  initiate_login_url: string;
  redirect_uris: string[];
  target_link_uri: string;
  deep_linking_url: string | null;
  jwks_url: string | null;
  public_jwk: Record<string, unknown> | null;
  scopes: string[];
  custom: Record<string, string>;
  enabled: boolean;
  registered_by: 'manual' | 'dynamic';
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export type ToolValues = Pick<
  ToolRow,
  | 'name'
  | 'description'
  | 'initiate_login_url'
  | 'redirect_uris'
  | 'target_link_uri'
  | 'deep_linking_url'
  | 'jwks_url'
  | 'public_jwk'
  | 'scopes'
  | 'custom'
  | 'enabled'
>;

export interface DeploymentRow {
  organization_id: string;
  tool_id: string;
  deployment_id: string;
  enabled: boolean;
  send_name: boolean;
  send_email: boolean;
  updated_at: Date;
}

export interface LessonLinkRow {
  lesson_id: string;
  course_id: string;
  tool_id: string;
  url: string | null;
  custom: Record<string, string>;
  score_maximum: string | null;
  label: string | null;
}

export interface LaunchTarget {
  lesson_id: string;
  lesson_title: string;
  course_id: string;
  course_slug: string;
  course_title: string;
  link: LessonLinkRow;
}

export interface PersonRow {
  id: string;
  email: string;
  name: string | null;
  locale: string;
  minor: boolean;
  role: OrgRole;
}

export interface ContextRow {
  id: string;
  organization_id: string;
  course_id: string;
  slug: string;
  title: string;
}

/** What a launch from a lesson needs, read in one statement (extensions-v3 1.3). */
export interface LaunchStart {
  tool_id: string;
  link_url: string | null;
  enrolled: boolean;
  minor: boolean;
  /** null when the tool is deleted */
  tool: Pick<ToolRow, 'id' | 'enabled' | 'client_id' | 'initiate_login_url' | 'target_link_uri'> | null;
  /** null until the organization's deployment of the tool exists */
  deployment: Pick<DeploymentRow, 'deployment_id' | 'enabled'> | null;
}

/** What the id_token of a resource-link launch needs, read in one statement; null parts are created at first use. */
export interface ResourceLinkState extends LaunchTarget {
  person: PersonRow | null;
  organization_name: string;
  deployment: Pick<DeploymentRow, 'deployment_id' | 'enabled' | 'send_name' | 'send_email'> | null;
  context_id: string | null;
  line_item_id: string | null;
}

/** A context with the tool's deployment in its organization (null when it has none). */
export interface ServiceContextRow extends ContextRow {
  deployment: Pick<DeploymentRow, 'enabled' | 'send_name' | 'send_email'> | null;
}

/**
 * What a score reads and whether it was stored (LtiRepository.recordScore); the context's fields are null when the
 * context is unknown.
 */
export interface ScoreTargetRow extends ServiceContextRow {
  /** the service token is live and its tool enabled */
  token_ok: boolean;
  line_item_id: string | null;
  lesson_id: string | null;
  enrolled: boolean;
  /** the learner's role in the context's organization (null when not a member) */
  role: OrgRole | null;
  /** the line item's lesson is already completed by the learner */
  completed: boolean;
  stored: boolean;
}

/** TypeORM answers an UPDATE ... RETURNING as `[rows, count]`; this gives the rows either way. */
function updated<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

const TOOL_COLUMNS = `id, name, description, client_id, initiate_login_url, redirect_uris, target_link_uri,
  deep_linking_url, jwks_url, public_jwk, scopes, custom, enabled, registered_by, created_by, created_at, updated_at`;

/**
 * The SELECT of a resource-link launch's state (LtiRepository.resourceLinkState), its parameters from `$first`:
 * organization, course, lesson, person, tool.
 */
function resourceLinkStateSql(first: number): string {
  const [org, course, lesson, user, tool] = [0, 1, 2, 3, 4].map((i) => first + i);
  return `SELECT ls.id AS lesson_id, ls.title AS lesson_title, c.id AS course_id, c.slug AS course_slug,
              c.title AS course_title, to_jsonb(l) AS link, o.name AS organization_name,
              CASE WHEN m.user_id IS NULL THEN NULL ELSE json_build_object('id', u.id, 'email', u.email,
                'name', u.name, 'locale', u.locale, 'minor', u.age_bracket = 'under_18', 'role', m.role) END AS person,
              CASE WHEN d.deployment_id IS NULL THEN NULL ELSE json_build_object('deployment_id', d.deployment_id,
                'enabled', d.enabled, 'send_name', d.send_name, 'send_email', d.send_email) END AS deployment,
              x.id AS context_id, li.id AS line_item_id
       FROM lessons_read ls
       JOIN courses_read c ON c.id = ls.course_id
       JOIN lti_lesson_links l ON l.lesson_id = ls.id
       JOIN organizations_read o ON o.id = $${org}
       LEFT JOIN memberships_read m ON ${orgEq(org, 'm')} AND m.user_id = $${user}
       LEFT JOIN users_read u ON u.id = m.user_id
       LEFT JOIN lti_deployments d ON ${orgEq(org, 'd')} AND d.tool_id = $${tool}
       LEFT JOIN lti_contexts x ON ${orgEq(org, 'x')} AND x.course_id = c.id
       LEFT JOIN lti_line_items li ON li.context_id = x.id AND li.lesson_id = ls.id
       WHERE ls.id = $${lesson} AND c.id = $${course} AND ${visibleTo('c', org)}`;
}

/** Every SQL statement of the LTI area. Tenant data is always read with its organization. */
@Injectable()
export class LtiRepository {
  constructor(private readonly dataSource: DataSource) {}

  // Platform keys

  /** Serializes key creation and rotation across instances for the transaction's lifetime. */
  async lockKeys(tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext('lti_platform_keys'))`);
  }

  async activeKey(tx?: Tx): Promise<PlatformKeyRow | null> {
    const rows: PlatformKeyRow[] = await db(this.dataSource, tx).query(
      `SELECT * FROM lti_platform_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`,
    );
    return rows[0] ?? null;
  }

  async insertKey(row: Omit<PlatformKeyRow, 'retired_at'>, tx: Tx): Promise<void> {
    await tx.manager.query(
      `INSERT INTO lti_platform_keys (kid, public_jwk, private_key_sealed, created_at) VALUES ($1, $2, $3, $4)`,
      [row.kid, JSON.stringify(row.public_jwk), row.private_key_sealed, row.created_at],
    );
  }

  async retireActiveKeys(now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(`UPDATE lti_platform_keys SET retired_at = $1 WHERE retired_at IS NULL`, [now]);
  }

  /** The keys the JWKS publishes: the active one and those retired after `since`. */
  async publishedKeys(since: Date): Promise<PlatformKeyRow[]> {
    return this.dataSource.query(
      `SELECT * FROM lti_platform_keys WHERE retired_at IS NULL OR retired_at > $1 ORDER BY created_at DESC`,
      [since],
    );
  }

  // Tools

  async countTools(tx?: Tx): Promise<number> {
    const rows: { n: number }[] = await db(this.dataSource, tx).query(
      `SELECT count(*)::int AS n FROM lti_tools WHERE deleted_at IS NULL`,
    );
    return rows[0].n;
  }

  async insertTool(
    values: ToolValues & { registered_by: 'manual' | 'dynamic'; created_by: string | null; now: Date },
    tx: Tx,
  ): Promise<ToolRow> {
    const rows: ToolRow[] = await tx.manager.query(
      `INSERT INTO lti_tools (name, description, initiate_login_url, redirect_uris, target_link_uri, deep_linking_url,
         jwks_url, public_jwk, scopes, custom, enabled, registered_by, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)
       RETURNING ${TOOL_COLUMNS}`,
      [
        values.name,
        values.description,
        values.initiate_login_url,
        values.redirect_uris,
        values.target_link_uri,
        values.deep_linking_url,
        values.jwks_url,
        values.public_jwk ? JSON.stringify(values.public_jwk) : null,
        values.scopes,
        JSON.stringify(values.custom),
        values.enabled,
        values.registered_by,
        values.created_by,
        values.now,
      ],
    );
    return rows[0];
  }

  async updateTool(id: string, values: ToolValues, now: Date, tx: Tx): Promise<ToolRow | null> {
    const rows = updated<ToolRow>(
      await tx.manager.query(
        `UPDATE lti_tools SET name = $2, description = $3, initiate_login_url = $4, redirect_uris = $5,
         target_link_uri = $6, deep_linking_url = $7, jwks_url = $8, public_jwk = $9, scopes = $10, custom = $11,
         enabled = $12, updated_at = $13
       WHERE id = $1 AND deleted_at IS NULL RETURNING ${TOOL_COLUMNS}`,
        [
          id,
          values.name,
          values.description,
          values.initiate_login_url,
          values.redirect_uris,
          values.target_link_uri,
          values.deep_linking_url,
          values.jwks_url,
          values.public_jwk ? JSON.stringify(values.public_jwk) : null,
          values.scopes,
          JSON.stringify(values.custom),
          values.enabled,
          now,
        ],
      ),
    );
    return rows[0] ?? null;
  }

  async softDeleteTool(id: string, now: Date, tx: Tx): Promise<boolean> {
    const rows = updated<{ id: string }>(
      await tx.manager.query(
        `UPDATE lti_tools SET deleted_at = $2, enabled = false, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL
         RETURNING id`,
        [id, now],
      ),
    );
    return rows.length > 0;
  }

  async tool(id: string, tx?: Tx): Promise<ToolRow | null> {
    const rows: ToolRow[] = await db(this.dataSource, tx).query(
      `SELECT ${TOOL_COLUMNS} FROM lti_tools WHERE id = $1 AND deleted_at IS NULL`,
      [id],
    );
    return rows[0] ?? null;
  }

  async toolByClientId(clientId: string): Promise<ToolRow | null> {
    const rows: ToolRow[] = await this.dataSource.query(
      `SELECT ${TOOL_COLUMNS} FROM lti_tools WHERE client_id::text = $1 AND deleted_at IS NULL`,
      [clientId],
    );
    return rows[0] ?? null;
  }

  async tools(): Promise<ToolRow[]> {
    return this.dataSource.query(
      `SELECT ${TOOL_COLUMNS} FROM lti_tools WHERE deleted_at IS NULL ORDER BY created_at, id`,
    );
  }

  // Deployments

  /** The organization's deployment of the tool, created (enabled, names and emails withheld) at first need. */
  async ensureDeployment(organizationId: string, toolId: string, now: Date, tx?: Tx): Promise<DeploymentRow> {
    const manager = db(this.dataSource, tx);
    await manager.query(
      `INSERT INTO lti_deployments (organization_id, tool_id, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (organization_id, tool_id) DO NOTHING`,
      [organizationId, toolId, now],
    );
    const rows: DeploymentRow[] = await manager.query(
      `SELECT * FROM lti_deployments WHERE ${orgEq(1)} AND tool_id = $2`,
      [organizationId, toolId],
    );
    return rows[0];
  }

  async deploymentById(deploymentId: string): Promise<DeploymentRow | null> {
    const rows: DeploymentRow[] = await this.dataSource.query(
      `${tenancyExempt('sign-in-lookup')} SELECT * FROM lti_deployments WHERE deployment_id::text = $1`,
      [deploymentId],
    );
    return rows[0] ?? null;
  }

  async updateDeployment(
    organizationId: string,
    toolId: string,
    values: Pick<DeploymentRow, 'enabled' | 'send_name' | 'send_email'>,
    now: Date,
    tx: Tx,
  ): Promise<DeploymentRow> {
    const rows = updated<DeploymentRow>(
      await tx.manager.query(
        `UPDATE lti_deployments SET enabled = $3, send_name = $4, send_email = $5, updated_at = $6
         WHERE ${orgEq(1)} AND tool_id = $2 RETURNING *`,
        [organizationId, toolId, values.enabled, values.send_name, values.send_email, now],
      ),
    );
    return rows[0];
  }

  /** Tools used by a lesson of a course the organization sees, with those courses. */
  async toolsUsedBy(
    organizationId: string,
    toolId?: string,
  ): Promise<{ tool_id: string; tool_name: string; courses: { course_id: string; title: string }[] }[]> {
    return this.dataSource.query(
      `SELECT t.id AS tool_id, t.name AS tool_name,
              json_agg(DISTINCT jsonb_build_object('course_id', c.id, 'title', c.title)) AS courses
       FROM lti_lesson_links l
       JOIN lti_tools t ON t.id = l.tool_id AND t.deleted_at IS NULL
       JOIN courses_read c ON c.id = l.course_id
       WHERE ${visibleTo('c', 1)} AND ($2::uuid IS NULL OR t.id = $2)
       GROUP BY t.id, t.name ORDER BY t.name, t.id`,
      [organizationId, toolId ?? null],
    );
  }

  // Lesson links

  async setLessonLink(
    lessonId: string,
    courseId: string,
    link: Omit<LessonLinkRow, 'lesson_id' | 'course_id'> | null,
    tx: Tx,
  ): Promise<void> {
    if (!link) {
      await tx.manager.query(`DELETE FROM lti_lesson_links WHERE lesson_id = $1`, [lessonId]);
      return;
    }
    await tx.manager.query(
      `INSERT INTO lti_lesson_links (lesson_id, course_id, tool_id, url, custom, score_maximum, label)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (lesson_id) DO UPDATE SET tool_id = $3, url = $4, custom = $5, score_maximum = $6, label = $7`,
      [lessonId, courseId, link.tool_id, link.url, JSON.stringify(link.custom), link.score_maximum, link.label],
    );
  }

  async lessonLinks(
    lessonIds: readonly string[],
  ): Promise<(LessonLinkRow & { tool_name: string; tool_enabled: boolean })[]> {
    if (lessonIds.length === 0) return [];
    return this.dataSource.query(
      `SELECT l.*, t.name AS tool_name, (t.enabled AND t.deleted_at IS NULL) AS tool_enabled
       FROM lti_lesson_links l JOIN lti_tools t ON t.id = l.tool_id WHERE l.lesson_id = ANY($1::uuid[])`,
      [lessonIds],
    );
  }

  /** Deployments of these tools in the organization (absent: not created yet, so enabled by default). */
  async deploymentsOf(organizationId: string, toolIds: readonly string[]): Promise<DeploymentRow[]> {
    if (toolIds.length === 0) return [];
    return this.dataSource.query(`SELECT * FROM lti_deployments WHERE ${orgEq(1)} AND tool_id = ANY($2::uuid[])`, [
      organizationId,
      toolIds,
    ]);
  }

  /**
   * The lesson's tool link in a course the organization sees, with whether the person is enrolled and a minor, the
   * tool and the organization's deployment of it: one statement for the launch's first step.
   */
  async launchStart(
    organizationId: string,
    courseId: string,
    lessonId: string,
    userId: string,
  ): Promise<LaunchStart | null> {
    const rows: LaunchStart[] = await this.dataSource.query(
      `SELECT l.tool_id, l.url AS link_url,
              EXISTS (SELECT 1 FROM enrollments_read e
                      WHERE ${orgEq(1, 'e')} AND e.user_id = $4 AND e.course_id = c.id) AS enrolled,
              coalesce(u.age_bracket = 'under_18', false) AS minor,
              CASE WHEN t.id IS NULL THEN NULL ELSE json_build_object('id', t.id, 'enabled', t.enabled,
                'client_id', t.client_id, 'initiate_login_url', t.initiate_login_url,
                'target_link_uri', t.target_link_uri) END AS tool,
              CASE WHEN d.deployment_id IS NULL THEN NULL
                ELSE json_build_object('deployment_id', d.deployment_id, 'enabled', d.enabled) END AS deployment
       FROM lessons_read ls
       JOIN courses_read c ON c.id = ls.course_id
       JOIN lti_lesson_links l ON l.lesson_id = ls.id
       LEFT JOIN lti_tools t ON t.id = l.tool_id AND t.deleted_at IS NULL
       LEFT JOIN users_read u ON u.id = $4
       LEFT JOIN lti_deployments d ON ${orgEq(1, 'd')} AND d.tool_id = l.tool_id
       WHERE ls.id = $3 AND c.id = $2 AND ${visibleTo('c', 1)}`,
      [organizationId, courseId, lessonId, userId],
    );
    return rows[0] ?? null;
  }

  /**
   * Everything the id_token of a resource-link launch names, in one statement: the lesson's link, the member, the
   * organization's name, its deployment of the tool, the course's context and the lesson's line item there (the last
   * three null until first use).
   */
  async resourceLinkState(
    organizationId: string,
    courseId: string,
    lessonId: string,
    userId: string,
    toolId: string,
  ): Promise<ResourceLinkState | null> {
    const rows: ResourceLinkState[] = await this.dataSource.query(resourceLinkStateSql(1), [
      organizationId,
      courseId,
      lessonId,
      userId,
      toolId,
    ]);
    return rows[0] ?? null;
  }

  /**
   * The tool of a `client_id` (null when unknown or deleted) and, in the same statement, the resource-link state of
   * resourceLinkState for the launch a login hint names (`state` null when the lesson, its link or the course is
   * gone): the authorization request's reads in one round trip.
   */
  async toolWithResourceLinkState(
    clientId: string,
    launch: { organizationId: string; courseId: string; lessonId: string; userId: string; toolId: string },
  ): Promise<{ tool: ToolRow; state: ResourceLinkState | null } | null> {
    const rows: (ToolRow & { state: ResourceLinkState | null })[] = await this.dataSource.query(
      `SELECT ${TOOL_COLUMNS}, (SELECT to_jsonb(s) FROM (${resourceLinkStateSql(2)} LIMIT 1) s) AS state
       FROM lti_tools WHERE client_id::text = $1 AND deleted_at IS NULL`,
      [clientId, launch.organizationId, launch.courseId, launch.lessonId, launch.userId, launch.toolId],
    );
    if (!rows[0]) return null;
    const { state, ...tool } = rows[0];
    return { tool, state };
  }

  /** A course of the catalog (any status) for the editor's deep linking. */
  async course(courseId: string): Promise<{ id: string; slug: string; title: string } | null> {
    const rows: { id: string; slug: string; title: string }[] = await this.dataSource.query(
      `SELECT id, slug, title FROM courses_read WHERE id = $1`,
      [courseId],
    );
    return rows[0] ?? null;
  }

  async lessonTitle(lessonId: string): Promise<string | null> {
    const rows: { title: string }[] = await this.dataSource.query(`SELECT title FROM lessons_read WHERE id = $1`, [
      lessonId,
    ]);
    return rows[0]?.title ?? null;
  }

  // People

  async user(userId: string): Promise<Omit<PersonRow, 'role'> | null> {
    const rows: Omit<PersonRow, 'role'>[] = await this.dataSource.query(
      `SELECT id, email, name, locale, (age_bracket = 'under_18') AS minor FROM users_read WHERE id = $1`,
      [userId],
    );
    return rows[0] ?? null;
  }

  // Contexts

  async ensureContext(organizationId: string, courseId: string, tx?: Tx): Promise<string> {
    const manager = db(this.dataSource, tx);
    await manager.query(
      `INSERT INTO lti_contexts (organization_id, course_id) VALUES ($1, $2)
       ON CONFLICT (organization_id, course_id) DO NOTHING`,
      [organizationId, courseId],
    );
    const rows: { id: string }[] = await manager.query(
      `SELECT id FROM lti_contexts WHERE ${orgEq(1)} AND course_id = $2`,
      [organizationId, courseId],
    );
    return rows[0].id;
  }

  // Nonces, launches

  /** Records a single-use value; false when it was already used (and has not expired). */
  async useOnce(kind: string, value: string, expiresAt: Date, now: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO lti_used_nonces (kind, value, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (kind, value) DO UPDATE SET expires_at = EXCLUDED.expires_at
         WHERE lti_used_nonces.expires_at <= $4
       RETURNING 1`,
      [kind, value, expiresAt, now],
    );
    return rows.length > 0;
  }

  /**
   * Uses the nonce once and records the launch in one statement; false (nothing recorded) when the nonce was already
   * used and has not expired.
   */
  async useNonceAndRecordLaunch(
    nonce: { kind: string; value: string; expiresAt: Date },
    launch: {
      toolId: string;
      organizationId: string | null;
      lessonId: string | null;
      userId: string;
      messageType: string;
      at: Date;
    },
  ): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH used AS (
         INSERT INTO lti_used_nonces (kind, value, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (kind, value) DO UPDATE SET expires_at = EXCLUDED.expires_at
           WHERE lti_used_nonces.expires_at <= $9
         RETURNING 1)
       INSERT INTO lti_launches (tool_id, organization_id, lesson_id, user_id, message_type, at)
       SELECT $4::uuid, $5::uuid, $6::uuid, $7::uuid, $8::text, $9::timestamptz FROM used
       RETURNING 1`,
      [
        nonce.kind,
        nonce.value,
        nonce.expiresAt,
        launch.toolId,
        launch.organizationId,
        launch.lessonId,
        launch.userId,
        launch.messageType,
        launch.at,
      ],
    );
    return rows.length > 0;
  }

  /** Launches in the organization since `since` (its statistics). */
  async countLaunches(organizationId: string, since: Date | null): Promise<number> {
    const rows: { n: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS n FROM lti_launches WHERE ${orgEq(1)} AND ($2::timestamptz IS NULL OR at >= $2)`,
      [organizationId, since],
    );
    return rows[0].n;
  }

  // Line items

  /** The line item of a lesson's link in a context, created at first use; its id. */
  async ensureLessonLineItem(item: {
    toolId: string;
    contextId: string;
    organizationId: string;
    lessonId: string;
    label: string;
    scoreMaximum: number;
    now: Date;
  }): Promise<string> {
    await this.dataSource.query(
      `INSERT INTO lti_line_items (tool_id, context_id, organization_id, lesson_id, resource_link_id, label, score_maximum,
         created_at)
       VALUES ($1, $2, $3, $4, $8, $5, $6, $7)
       ON CONFLICT (context_id, lesson_id) WHERE lesson_id IS NOT NULL DO NOTHING`,
      [
        item.toolId,
        item.contextId,
        item.organizationId,
        item.lessonId,
        item.label,
        item.scoreMaximum,
        item.now,
        item.lessonId,
      ],
    );
    const rows: { id: string }[] = await this.dataSource.query(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT id FROM lti_line_items WHERE context_id = $1 AND lesson_id = $2`,
      [item.contextId, item.lessonId],
    );
    return rows[0].id;
  }

  /** The lessons of a course linking this tool with a line item (each context of the course gets their items). */
  async lessonLineItemLinks(
    courseId: string,
    toolId: string,
  ): Promise<{ lesson_id: string; title: string; score_maximum: string; label: string | null }[]> {
    return this.dataSource.query(
      `SELECT l.lesson_id, ls.title, l.score_maximum, l.label FROM lti_lesson_links l JOIN lessons_read ls ON ls.id = l.lesson_id
       WHERE l.course_id = $1 AND l.tool_id = $2 AND l.score_maximum IS NOT NULL`,
      [courseId, toolId],
    );
  }

  async lineItems(
    contextId: string,
    toolId: string,
    filter: { resourceLinkId?: string; resourceId?: string; tag?: string; limit: number; offset: number },
  ): Promise<LineItemRow[]> {
    return this.dataSource.query(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT * FROM lti_line_items WHERE context_id = $1 AND tool_id = $2
         AND ($3::text IS NULL OR resource_link_id = $3) AND ($4::text IS NULL OR resource_id = $4)
         AND ($5::text IS NULL OR tag = $5)
       ORDER BY created_at, id LIMIT $6 OFFSET $7`,
      [
        contextId,
        toolId,
        filter.resourceLinkId ?? null,
        filter.resourceId ?? null,
        filter.tag ?? null,
        filter.limit,
        filter.offset,
      ],
    );
  }

  async lineItem(contextId: string, toolId: string, id: string): Promise<LineItemRow | null> {
    const rows: LineItemRow[] = await this.dataSource.query(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT * FROM lti_line_items WHERE context_id = $1 AND tool_id = $2 AND id::text = $3`,
      [contextId, toolId, id],
    );
    return rows[0] ?? null;
  }

  async insertLineItem(
    values: LineItemValues & { toolId: string; contextId: string; organizationId: string; now: Date },
  ): Promise<LineItemRow> {
    const rows: LineItemRow[] = await this.dataSource.query(
      `INSERT INTO lti_line_items (tool_id, context_id, organization_id, resource_link_id, label, score_maximum,
         resource_id, tag, start_date_time, end_date_time, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [
        values.toolId,
        values.contextId,
        values.organizationId,
        values.resource_link_id,
        values.label,
        values.score_maximum,
        values.resource_id,
        values.tag,
        values.start_date_time,
        values.end_date_time,
        values.now,
      ],
    );
    return rows[0];
  }

  async updateLineItem(id: string, values: LineItemValues): Promise<LineItemRow> {
    const rows = updated<LineItemRow>(
      await this.dataSource.query(
        `${tenancyExempt('by-key-after-scoped-read')} UPDATE lti_line_items SET resource_link_id = $2, label = $3, score_maximum = $4, resource_id = $5, tag = $6,
         start_date_time = $7, end_date_time = $8 WHERE id = $1 RETURNING *`,
        [
          id,
          values.resource_link_id,
          values.label,
          values.score_maximum,
          values.resource_id,
          values.tag,
          values.start_date_time,
          values.end_date_time,
        ],
      ),
    );
    return rows[0];
  }

  async deleteLineItem(id: string): Promise<void> {
    await this.dataSource.query(
      `${tenancyExempt('by-key-after-scoped-read')} DELETE FROM lti_line_items WHERE id = $1`,
      [id],
    );
  }

  async results(
    lineItemId: string,
    filter: { userId?: string; limit: number; offset: number },
  ): Promise<{ user_id: string; score_given: string | null; score_maximum: string | null; comment: string | null }[]> {
    return this.dataSource.query(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT user_id, score_given, score_maximum, comment FROM lti_results
       WHERE line_item_id = $1 AND ($2::uuid IS NULL OR user_id = $2) ORDER BY user_id LIMIT $3 OFFSET $4`,
      [lineItemId, filter.userId ?? null, filter.limit, filter.offset],
    );
  }

  /**
   * The person's scores on lessons' line items in the organization, for these courses (the latest stored result of
   * each lesson with a given score), in course order.
   */
  async lessonScores(
    organizationId: string,
    userId: string,
    courseIds: readonly string[],
  ): Promise<{ course_id: string; lesson_id: string; lesson_title: string; score: number; updated_at: Date }[]> {
    if (courseIds.length === 0) return [];
    return this.dataSource.query(
      `SELECT x.course_id, li.lesson_id, ls.title AS lesson_title,
              round(least(100, 100 * r.score_given / r.score_maximum), 2)::float8 AS score, r.updated_at
       FROM lti_results r
       JOIN lti_line_items li ON li.id = r.line_item_id AND li.lesson_id IS NOT NULL
       JOIN lti_contexts x ON x.id = li.context_id AND x.organization_id = r.organization_id
       JOIN lessons_read ls ON ls.id = li.lesson_id AND ls.course_id = x.course_id
       WHERE ${orgEq(1, 'r')} AND r.user_id = $2 AND x.course_id = ANY($3::uuid[])
         AND r.score_given IS NOT NULL AND r.score_maximum > 0
       ORDER BY x.course_id, ls.position, ls.id`,
      [organizationId, userId, courseIds],
    );
  }

  // Service tokens

  async insertAccessToken(hash: string, toolId: string, scopes: string[], expiresAt: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO lti_access_tokens (token_hash, tool_id, scopes, expires_at) VALUES ($1, $2, $3, $4)`,
      [hash, toolId, scopes, expiresAt],
    );
  }

  /** The enabled tool and scopes of a live service token, in one statement. */
  async serviceAccess(hash: string, now: Date): Promise<{ tool: ToolRow; scopes: string[] } | null> {
    const rows: (ToolRow & { access_scopes: string[] })[] = await this.dataSource.query(
      `SELECT a.scopes AS access_scopes, ${TOOL_COLUMNS.split(',')
        .map((c) => `t.${c.trim()}`)
        .join(', ')}
       FROM lti_access_tokens a JOIN lti_tools t ON t.id = a.tool_id AND t.deleted_at IS NULL AND t.enabled
       WHERE a.token_hash = $1 AND a.expires_at > $2`,
      [hash, now],
    );
    if (!rows[0]) return null;
    const { access_scopes: scopes, ...tool } = rows[0];
    return { tool, scopes };
  }

  /** A context with the tool's deployment in its organization, in one statement. */
  async serviceContext(contextId: string, toolId: string): Promise<ServiceContextRow | null> {
    const rows: ServiceContextRow[] = await this.dataSource.query(
      `${tenancyExempt('lti-service-context')} SELECT x.id, x.organization_id, x.course_id, c.slug, c.title,
              CASE WHEN d.deployment_id IS NULL THEN NULL ELSE json_build_object('enabled', d.enabled,
                'send_name', d.send_name, 'send_email', d.send_email) END AS deployment
       FROM lti_contexts x JOIN courses_read c ON c.id = x.course_id
       LEFT JOIN lti_deployments d ON d.organization_id = x.organization_id AND d.tool_id = $2
       WHERE x.id::text = $1`,
      [contextId, toolId],
    );
    return rows[0] ?? null;
  }

  /**
   * A score in one statement: whether the service token is still live (not expired, its tool enabled and not
   * deleted: `token_ok`); the context with the tool's deployment, the tool's line item there (null when unknown),
   * whether the learner is enrolled in the course in the context's organization, their role there and whether the
   * line item's lesson is already completed (all null when the context is unknown); and the score stored (when the
   * token is live, the deployment enabled, the line item known, the learner enrolled, and the score newer than the
   * stored one: `stored`). Without a score (`score` null: a body that is not valid) nothing is stored and the rest is
   * still read, for the 401 and 404s first.
   */
  async recordScore(
    access: { tokenHash: string; toolId: string; now: Date },
    contextId: string,
    lineItemId: string,
    score: {
      userId: string;
      scoreGiven: number | null;
      scoreMaximum: number | null;
      comment: string | null;
      activityProgress: string;
      gradingProgress: string;
      timestamp: Date;
    } | null,
  ): Promise<ScoreTargetRow | null> {
    const rows: ScoreTargetRow[] = await this.dataSource.query(
      `${tenancyExempt('lti-service-context')} WITH tok AS (
         SELECT 1 FROM lti_access_tokens a JOIN lti_tools tl ON tl.id = a.tool_id AND tl.deleted_at IS NULL AND tl.enabled
         WHERE a.token_hash = $12 AND a.tool_id = $2 AND a.expires_at > $11),
       t AS (
         SELECT x.id, x.organization_id, x.course_id, c.slug, c.title,
                CASE WHEN d.deployment_id IS NULL THEN NULL ELSE json_build_object('enabled', d.enabled,
                  'send_name', d.send_name, 'send_email', d.send_email) END AS deployment,
                coalesce(d.enabled, false) AS deployment_enabled,
                li.id AS line_item_id, li.lesson_id,
                ($4::uuid IS NOT NULL AND EXISTS (SELECT 1 FROM enrollments_read e
                  WHERE e.organization_id = x.organization_id AND e.user_id = $4::uuid AND e.course_id = x.course_id))
                  AS enrolled,
                (SELECT m.role FROM memberships_read m WHERE m.organization_id = x.organization_id AND m.user_id = $4::uuid)
                  AS role,
                (li.lesson_id IS NOT NULL AND EXISTS (SELECT 1 FROM lesson_completions_read lc
                  WHERE lc.organization_id = x.organization_id AND lc.user_id = $4::uuid AND lc.lesson_id = li.lesson_id))
                  AS completed
         FROM lti_contexts x JOIN courses_read c ON c.id = x.course_id
         LEFT JOIN lti_deployments d ON d.organization_id = x.organization_id AND d.tool_id = $2
         LEFT JOIN lti_line_items li ON li.context_id = x.id AND li.tool_id = $2 AND li.id::text = $3
         WHERE x.id::text = $1),
       stored AS (
         INSERT INTO lti_results (line_item_id, user_id, organization_id, score_given, score_maximum, comment,
           activity_progress, grading_progress, timestamp, updated_at)
         SELECT t.line_item_id, $4::uuid, t.organization_id, $5::numeric, $6::numeric, $7::text, $8::text, $9::text,
                $10::timestamptz, $11::timestamptz
         FROM t WHERE t.deployment_enabled AND t.line_item_id IS NOT NULL AND t.enrolled AND EXISTS (SELECT 1 FROM tok)
         ON CONFLICT (line_item_id, user_id) DO UPDATE SET score_given = EXCLUDED.score_given,
           score_maximum = EXCLUDED.score_maximum, comment = EXCLUDED.comment,
           activity_progress = EXCLUDED.activity_progress, grading_progress = EXCLUDED.grading_progress,
           timestamp = EXCLUDED.timestamp, updated_at = EXCLUDED.updated_at
         WHERE lti_results.timestamp < EXCLUDED.timestamp
         RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM tok) AS token_ok, t.id, t.organization_id, t.course_id, t.slug, t.title,
              t.deployment, t.line_item_id, t.lesson_id, t.enrolled, t.role, t.completed,
              EXISTS (SELECT 1 FROM stored) AS stored
       FROM (SELECT 1) one LEFT JOIN t ON true`,
      [
        contextId,
        access.toolId,
        lineItemId,
        score?.userId ?? null,
        score?.scoreGiven ?? null,
        score?.scoreMaximum ?? null,
        score?.comment ?? null,
        score?.activityProgress ?? null,
        score?.gradingProgress ?? null,
        score?.timestamp ?? null,
        access.now,
        access.tokenHash,
      ],
    );
    return rows[0] ?? null;
  }

  // Roster

  /**
   * The context's members after `after` (user id order): people enrolled in the course in the organization, and
   * its owners, admins and teachers; suspended memberships (SCIM) included, flagged.
   */
  async members(
    organizationId: string,
    courseId: string,
    filter: { roles: readonly string[] | null; after: string | null; limit: number },
  ): Promise<(Omit<PersonRow, 'locale'> & { suspended: boolean })[]> {
    return this.dataSource.query(
      `SELECT u.id, u.email, u.name, (u.age_bracket = 'under_18') AS minor, m.role,
              (m.suspended_at IS NOT NULL) AS suspended
       FROM memberships_read m JOIN users_read u ON u.id = m.user_id
       WHERE ${orgEq(1, 'm')}
         AND (m.role <> 'student' OR EXISTS (SELECT 1 FROM enrollments_read e
               WHERE ${orgEq(1, 'e')} AND e.user_id = m.user_id AND e.course_id = $2))
         AND ($3::text[] IS NULL OR m.role = ANY($3::text[]))
         AND ($4::uuid IS NULL OR m.user_id > $4)
       ORDER BY m.user_id LIMIT $5`,
      [organizationId, courseId, filter.roles, filter.after, filter.limit],
    );
  }

  // Dynamic registrations

  async insertRegistration(
    tokenHash: string,
    initiationUrl: string,
    expiresAt: Date,
    createdBy: string,
    now: Date,
  ): Promise<string> {
    const rows: { id: string }[] = await this.dataSource.query(
      `INSERT INTO lti_registrations (token_hash, initiation_url, expires_at, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [tokenHash, initiationUrl, expiresAt, createdBy, now],
    );
    return rows[0].id;
  }

  async registration(id: string): Promise<{
    id: string;
    token_hash: string;
    expires_at: Date;
    used_at: Date | null;
    created_by: string | null;
  } | null> {
    const rows: {
      id: string;
      token_hash: string;
      expires_at: Date;
      used_at: Date | null;
      created_by: string | null;
    }[] = await this.dataSource.query(
      `SELECT id, token_hash, expires_at, used_at, created_by FROM lti_registrations WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async markRegistrationUsed(id: string, toolId: string, now: Date): Promise<void> {
    await this.dataSource.query(`UPDATE lti_registrations SET used_at = $2, tool_id = $3 WHERE id = $1`, [
      id,
      now,
      toolId,
    ]);
  }

  /** Deletes launches older than `launchesBefore` and expired nonces and service tokens; the counts. */
  async prune(now: Date, launchesBefore: Date): Promise<{ launches: number; nonces: number; tokens: number }> {
    const count = async (sql: string, param: Date): Promise<number> =>
      updated<{ n: number }>(
        await this.dataSource.query(`WITH d AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM d`, [param]),
      )[0].n;
    return {
      launches: await count(
        `${tenancyExempt('cross-organization-job')} DELETE FROM lti_launches WHERE at < $1`,
        launchesBefore,
      ),
      nonces: await count(`DELETE FROM lti_used_nonces WHERE expires_at < $1`, now),
      tokens: await count(`DELETE FROM lti_access_tokens WHERE expires_at < $1`, now),
    };
  }

  /** Serializes tool registrations (the platform-wide tool limit) until the transaction ends. */
  async lockToolRegistrations(tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext('lti_tools'))`);
  }
}

export interface LineItemValues {
  resource_link_id: string | null;
  label: string;
  score_maximum: number;
  resource_id: string | null;
  tag: string | null;
  start_date_time: Date | null;
  end_date_time: Date | null;
}

export interface LineItemRow {
  id: string;
  tool_id: string;
  context_id: string;
  organization_id: string;
  lesson_id: string | null;
  resource_link_id: string | null;
  label: string;
  score_maximum: string;
  resource_id: string | null;
  tag: string | null;
  start_date_time: Date | null;
  end_date_time: Date | null;
  created_at: Date;
}
