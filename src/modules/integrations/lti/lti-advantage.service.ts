import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import type { OrgRole } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { ProgressService } from '@/modules/learning/progress';
import { LTI_ROLE, LTI_SCOPE, ltiRoles } from './lti-constants';
import {
  type ContextRow,
  type LineItemRow,
  type LineItemValues,
  LtiRepository,
  type ServiceContextRow,
} from './lti.repository';
import { LtiServiceError } from './lti-service-errors';
import { type ScoreAccess, type ServiceAccess, LtiTokenService } from './lti-token.service';

const ACTIVITY = ['Initialized', 'Started', 'InProgress', 'Submitted', 'Completed'];
const GRADING = ['FullyGraded', 'Pending', 'PendingManual', 'Failed', 'NotReady'];
const SHORT_ROLES: Record<string, string> = {
  Learner: LTI_ROLE.learner,
  Instructor: LTI_ROLE.instructor,
  Administrator: LTI_ROLE.administrator,
};

export interface Paged<T> {
  body: T;
  next: string | null;
}

/**
 * Assignment and Grade Services 2.0 and Names and Role Provisioning Services 2.0 (extensions-v3 1.6, 1.7), reached
 * with a tool's service token. A token reaches a context only where its tool has an enabled deployment in the
 * context's organization (else 404). A FullyGraded, Completed or Submitted score on a lesson's line item completes
 * the lesson through the progress area's public service, with every effect of `POST .../complete`.
 */
@Injectable()
export class LtiAdvantageService {
  private readonly logger = new Logger('LtiAdvantage');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: LtiRepository,
    private readonly clock: Clock,
    private readonly progress: ProgressService,
    private readonly tokens: LtiTokenService,
  ) {}

  async lineItems(access: ServiceAccess, contextId: string, query: Record<string, unknown>): Promise<Paged<object[]>> {
    need(access, [LTI_SCOPE.lineItem, LTI_SCOPE.lineItemReadonly]);
    const context = await this.context(access, contextId);
    await this.ensureLessonItems(access, context);
    const limit = intParam(query.limit, 100, 1, 1000, 'limit');
    const page = intParam(query.page, 1, 1, 1_000_000, 'page');
    const rows = await this.repo.lineItems(context.id, access.tool.id, {
      resourceLinkId: strParam(query.resource_link_id),
      resourceId: strParam(query.resource_id),
      tag: strParam(query.tag),
      limit: limit + 1,
      offset: (page - 1) * limit,
    });
    const next =
      rows.length > limit ? this.pageUrl(`${this.contextUrl(context.id)}/lineitems`, query, limit, page + 1) : null;
    return { body: rows.slice(0, limit).map((r) => this.lineItemJson(r)), next };
  }

  async lineItem(access: ServiceAccess, contextId: string, id: string): Promise<object> {
    need(access, [LTI_SCOPE.lineItem, LTI_SCOPE.lineItemReadonly]);
    const context = await this.context(access, contextId);
    return this.lineItemJson(await this.item(access, context, id));
  }

  async createLineItem(access: ServiceAccess, contextId: string, body: unknown): Promise<object> {
    need(access, [LTI_SCOPE.lineItem]);
    const context = await this.context(access, contextId);
    const values = lineItemValues(body);
    const row = await this.repo.insertLineItem({
      ...values,
      toolId: access.tool.id,
      contextId: context.id,
      organizationId: context.organization_id,
      now: this.clock.now(),
    });
    return this.lineItemJson(row);
  }

  async updateLineItem(access: ServiceAccess, contextId: string, id: string, body: unknown): Promise<object> {
    need(access, [LTI_SCOPE.lineItem]);
    const context = await this.context(access, contextId);
    const current = await this.item(access, context, id);
    const values = lineItemValues(body);
    return this.lineItemJson(
      await this.repo.updateLineItem(current.id, {
        ...values,
        resource_link_id: current.lesson_id ?? values.resource_link_id,
      }),
    );
  }

  async deleteLineItem(access: ServiceAccess, contextId: string, id: string): Promise<void> {
    need(access, [LTI_SCOPE.lineItem]);
    const context = await this.context(access, contextId);
    await this.repo.deleteLineItem((await this.item(access, context, id)).id);
  }

  async score(access: ScoreAccess, contextId: string, id: string, body: unknown): Promise<void> {
    need(access, [LTI_SCOPE.score]);
    // The body is checked first so that one statement reads the context, the deployment, the line item, the
    // enrollment and the completion, and stores the score when all of them allow it; its errors still come after the
    // 404s, as before (an invalid body stores nothing).
    let s: ReturnType<typeof scoreValues> | null = null;
    let invalid: unknown = null;
    try {
      s = scoreValues(body);
    } catch (err) {
      invalid = err;
    }
    const target = await this.repo.recordScore(
      { tokenHash: access.tokenHash, toolId: access.toolId, now: this.clock.now() },
      contextId.toLowerCase(),
      id.toLowerCase(),
      s,
    );
    if (!target?.token_ok) throw this.tokens.tokenRefused(access.tokenHash);
    if (!target || !target.deployment?.enabled) throw new LtiServiceError(404, 'not_found', 'Unknown context.');
    if (!target.line_item_id) throw new LtiServiceError(404, 'not_found', 'Unknown line item.');
    if (!s) throw invalid;
    if (!target.enrolled) {
      throw new LtiServiceError(422, 'invalid_request', 'userId is not enrolled in the course in this organization.');
    }
    const completes =
      s.gradingProgress === 'FullyGraded' && (s.activityProgress === 'Completed' || s.activityProgress === 'Submitted');
    // Already completed (the common case of a tool re-posting scores): nothing to apply, and no lock taken.
    if (target.stored && completes && target.lesson_id && !target.completed && target.role) {
      await this.complete(target, { userId: s.userId, role: target.role }, target.lesson_id);
    }
  }

  async results(
    access: ServiceAccess,
    contextId: string,
    id: string,
    query: Record<string, unknown>,
  ): Promise<Paged<object[]>> {
    need(access, [LTI_SCOPE.resultReadonly]);
    const context = await this.context(access, contextId);
    const item = await this.item(access, context, id);
    const limit = intParam(query.limit, 100, 1, 1000, 'limit');
    const page = intParam(query.page, 1, 1, 1_000_000, 'page');
    const userId = strParam(query.user_id);
    if (userId !== undefined && !isUuid(userId)) return { body: [], next: null };
    const rows = await this.repo.results(item.id, { userId, limit: limit + 1, offset: (page - 1) * limit });
    const itemUrl = `${this.contextUrl(context.id)}/lineitems/${item.id}`;
    const next = rows.length > limit ? this.pageUrl(`${itemUrl}/results`, query, limit, page + 1) : null;
    return {
      body: rows.slice(0, limit).map((r) => ({
        id: `${itemUrl}/results/${r.user_id}`,
        scoreOf: itemUrl,
        userId: r.user_id,
        ...(r.score_given !== null ? { resultScore: Number(r.score_given) } : {}),
        ...(r.score_maximum !== null ? { resultMaximum: Number(r.score_maximum) } : {}),
        ...(r.comment !== null ? { comment: r.comment } : {}),
      })),
      next,
    };
  }

  async memberships(access: ServiceAccess, contextId: string, query: Record<string, unknown>): Promise<Paged<object>> {
    need(access, [LTI_SCOPE.membership]);
    const context = await this.context(access, contextId);
    const deployment = context.deployment;
    const limit = intParam(query.limit, 100, 1, 1000, 'limit');
    const after = strParam(query.after);
    if (after !== undefined && !isUuid(after)) throw new LtiServiceError(400, 'invalid_request', 'after is not valid.');
    const role = strParam(query.role);
    let roles: string[] | null = null;
    if (role !== undefined) {
      const uri = SHORT_ROLES[role] ?? role;
      roles =
        uri === LTI_ROLE.learner
          ? ['student']
          : uri === LTI_ROLE.instructor
            ? ['teacher']
            : uri === LTI_ROLE.administrator || uri === LTI_ROLE.institutionAdministrator
              ? ['owner', 'admin']
              : [];
    }
    const rows = await this.repo.members(context.organization_id, context.course_id, {
      roles,
      after: after ?? null,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const url = `${this.contextUrl(context.id)}/memberships`;
    const next =
      rows.length > limit
        ? `${url}?${new URLSearchParams({ ...(role ? { role } : {}), limit: String(limit), after: page[page.length - 1].id }).toString()}`
        : null;
    return {
      body: {
        id: url,
        context: { id: context.id, label: context.slug, title: context.title },
        members: page.map((m) => ({
          user_id: m.id,
          roles: ltiRoles(m.role),
          // NRPS 2.0: a member whose membership is suspended (SCIM `active: false`) stays listed, Inactive.
          status: m.suspended ? 'Inactive' : 'Active',
          ...(deployment?.send_name && m.name ? nameClaims(m.name) : {}),
          ...(deployment?.send_email && !m.minor ? { email: m.email } : {}),
        })),
      },
      next,
    };
  }

  private async complete(
    context: ContextRow,
    person: { userId: string; role: OrgRole },
    lessonId: string,
  ): Promise<void> {
    const userId = person.userId;
    try {
      // The score's statement found the learner enrolled and the lesson on the context's course.
      await this.progress.completeEnrolledLesson(
        { organizationId: context.organization_id, userId, role: person.role },
        context.course_id,
        lessonId,
      );
    } catch (err) {
      // A lesson that also has a quiz to pass, or an enrollment removed meanwhile: the score stays, no completion.
      if (err instanceof ApiError)
        this.logger.warn({ code: err.code, lessonId }, 'LTI score did not complete the lesson');
      else throw err;
    }
  }

  /** The context, when the token's tool has an enabled deployment in its organization; else 404. */
  private async context(access: ServiceAccess, contextId: string): Promise<ServiceContextRow> {
    const context = isUuid(contextId) ? await this.repo.serviceContext(contextId.toLowerCase(), access.tool.id) : null;
    if (!context || !context.deployment?.enabled) throw new LtiServiceError(404, 'not_found', 'Unknown context.');
    return context;
  }

  private async item(access: ServiceAccess, context: ContextRow, id: string): Promise<LineItemRow> {
    const row = isUuid(id) ? await this.repo.lineItem(context.id, access.tool.id, id.toLowerCase()) : null;
    if (!row) throw new LtiServiceError(404, 'not_found', 'Unknown line item.');
    return row;
  }

  /** A lesson's line item shows in every context of its course, created at first use. */
  private async ensureLessonItems(access: ServiceAccess, context: ContextRow): Promise<void> {
    for (const link of await this.repo.lessonLineItemLinks(context.course_id, access.tool.id)) {
      await this.repo.ensureLessonLineItem({
        toolId: access.tool.id,
        contextId: context.id,
        organizationId: context.organization_id,
        lessonId: link.lesson_id,
        label: link.label ?? link.title.slice(0, 120),
        scoreMaximum: Number(link.score_maximum),
        now: this.clock.now(),
      });
    }
  }

  private contextUrl(contextId: string): string {
    return `${this.config.baseUrl}/api/v1/lti/contexts/${contextId}`;
  }

  private pageUrl(base: string, query: Record<string, unknown>, limit: number, page: number): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query))
      if (typeof v === 'string' && k !== 'page' && k !== 'limit') params.set(k, v);
    params.set('limit', String(limit));
    params.set('page', String(page));
    return `${base}?${params.toString()}`;
  }

  private lineItemJson(r: LineItemRow): object {
    return {
      id: `${this.contextUrl(r.context_id)}/lineitems/${r.id}`,
      scoreMaximum: Number(r.score_maximum),
      label: r.label,
      ...(r.resource_id !== null ? { resourceId: r.resource_id } : {}),
      ...(r.tag !== null ? { tag: r.tag } : {}),
      ...(r.resource_link_id !== null ? { resourceLinkId: r.resource_link_id } : {}),
      ...(r.start_date_time ? { startDateTime: r.start_date_time.toISOString() } : {}),
      ...(r.end_date_time ? { endDateTime: r.end_date_time.toISOString() } : {}),
    };
  }
}

function need(access: Pick<ServiceAccess, 'scopes'>, anyOf: string[]): void {
  if (!anyOf.some((s) => access.scopes.includes(s))) {
    throw new LtiServiceError(403, 'insufficient_scope', `This needs one of the scopes: ${anyOf.join(' ')}.`);
  }
}

function strParam(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

function intParam(v: unknown, fallback: number, min: number, max: number, name: string): number {
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!(n >= min && n <= max)) throw new LtiServiceError(400, 'invalid_request', `${name} must be ${min}..${max}.`);
  return n;
}

function dateOrNull(v: unknown, name: string): Date | null {
  if (v === undefined || v === null) return null;
  const d = typeof v === 'string' ? new Date(v) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw new LtiServiceError(400, 'invalid_request', `${name} must be an ISO 8601 time.`);
  return d;
}

function optText(v: unknown, name: string, max: number): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length > max) {
    throw new LtiServiceError(400, 'invalid_request', `${name} must be a string of at most ${max} characters.`);
  }
  return v;
}

function lineItemValues(body: unknown): LineItemValues {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.scoreMaximum !== 'number' || !(b.scoreMaximum > 0)) {
    throw new LtiServiceError(400, 'invalid_request', 'scoreMaximum must be a number greater than 0.');
  }
  if (typeof b.label !== 'string' || b.label.length < 1 || b.label.length > 120) {
    throw new LtiServiceError(400, 'invalid_request', 'label must be 1..120 characters.');
  }
  return {
    score_maximum: b.scoreMaximum,
    label: b.label,
    resource_id: optText(b.resourceId, 'resourceId', 256),
    tag: optText(b.tag, 'tag', 256),
    resource_link_id: optText(b.resourceLinkId, 'resourceLinkId', 256),
    start_date_time: dateOrNull(b.startDateTime, 'startDateTime'),
    end_date_time: dateOrNull(b.endDateTime, 'endDateTime'),
  };
}

function scoreValues(body: unknown): {
  userId: string;
  scoreGiven: number | null;
  scoreMaximum: number | null;
  comment: string | null;
  timestamp: Date;
  activityProgress: string;
  gradingProgress: string;
} {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.userId !== 'string' || !isUuid(b.userId)) {
    throw new LtiServiceError(422, 'invalid_request', 'userId is not a person of this platform.');
  }
  const timestamp = dateOrNull(b.timestamp, 'timestamp');
  if (!timestamp) throw new LtiServiceError(400, 'invalid_request', 'timestamp is required.');
  if (typeof b.activityProgress !== 'string' || !ACTIVITY.includes(b.activityProgress)) {
    throw new LtiServiceError(400, 'invalid_request', `activityProgress must be one of ${ACTIVITY.join(', ')}.`);
  }
  if (typeof b.gradingProgress !== 'string' || !GRADING.includes(b.gradingProgress)) {
    throw new LtiServiceError(400, 'invalid_request', `gradingProgress must be one of ${GRADING.join(', ')}.`);
  }
  const given = b.scoreGiven;
  const max = b.scoreMaximum;
  if (given !== undefined && (typeof given !== 'number' || given < 0)) {
    throw new LtiServiceError(400, 'invalid_request', 'scoreGiven must be a number >= 0.');
  }
  if (given !== undefined && (typeof max !== 'number' || !(max > 0))) {
    throw new LtiServiceError(400, 'invalid_request', 'scoreMaximum (> 0) is required with scoreGiven.');
  }
  return {
    userId: b.userId.toLowerCase(),
    scoreGiven: typeof given === 'number' ? given : null,
    scoreMaximum: typeof max === 'number' ? max : null,
    comment: optText(b.comment, 'comment', 1000),
    timestamp,
    activityProgress: b.activityProgress,
    gradingProgress: b.gradingProgress,
  };
}

function nameClaims(full: string): Record<string, string> {
  const parts = full.trim().split(/\s+/);
  return { name: full, given_name: parts[0], family_name: parts.length > 1 ? parts.slice(1).join(' ') : '' };
}
