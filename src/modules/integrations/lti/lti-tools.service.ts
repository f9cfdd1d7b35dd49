import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner, type Tx } from '@/core/database/transaction';
import { ApiError, type ErrorDetail } from '@/core/http/api-error';
import type {
  CreateLtiToolDto,
  LessonLtiDto,
  LessonLtiInputDto,
  LtiDeploymentDto,
  LtiToolBriefDto,
  LtiToolDto,
  UpdateLtiToolDto,
  UpdateLtiDeploymentDto,
  LearnerLessonLtiDto,
} from './dto/lti.dto';
import { LTI_MAX_TOOLS } from './lti-constants';
import { urlProblem } from './lti-outbound';
import { type DeploymentRow, LtiRepository, type ToolRow, type ToolValues } from './lti.repository';

const CUSTOM_KEY = /^[a-z0-9_]{1,64}$/;

export interface LtiActor {
  userId: string;
  ip?: string;
}

/**
 * The tool registry (the platform's) and deployments (each organization's), extensions-v3 1.2; and the lesson's
 * link to a tool (1.3), which the editor and the learner's lesson read through this service.
 */
@Injectable()
export class LtiToolsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: LtiRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  async list(full: boolean): Promise<{ items: (LtiToolDto | LtiToolBriefDto)[] }> {
    const rows = await this.repo.tools();
    return { items: rows.map((r) => (full ? this.toDto(r) : { id: r.id, name: r.name, enabled: r.enabled })) };
  }

  async get(id: string): Promise<LtiToolDto> {
    return this.toDto(await this.toolOr404(id));
  }

  async create(
    dto: CreateLtiToolDto,
    actor: LtiActor | null,
    registeredBy: 'manual' | 'dynamic' = 'manual',
  ): Promise<LtiToolDto> {
    const values = await this.validated({
      name: dto.name,
      description: dto.description ?? null,
      initiate_login_url: dto.initiate_login_url,
      redirect_uris: dto.redirect_uris,
      target_link_uri: dto.target_link_uri,
      deep_linking_url: dto.deep_linking_url ?? null,
      jwks_url: dto.jwks_url ?? null,
      public_jwk: dto.public_jwk ?? null,
      scopes: [...new Set(dto.scopes ?? [])],
      custom: dto.custom ?? {},
      enabled: true,
    });
    const row = await this.transactions.run(async (tx) => {
      await this.repo.lockToolRegistrations(tx);
      if ((await this.repo.countTools(tx)) >= LTI_MAX_TOOLS) {
        throw ApiError.conflict('lti_tool_limit_reached', `The platform has ${LTI_MAX_TOOLS} LTI tools.`);
      }
      const tool = await this.repo.insertTool(
        { ...values, registered_by: registeredBy, created_by: actor?.userId ?? null, now: this.clock.now() },
        tx,
      );
      await this.audit.record(
        {
          action: registeredBy === 'manual' ? 'lti_tool.created' : 'lti_tool.registered',
          actorId: actor?.userId ?? null,
          organizationId: null,
          targetType: 'lti_tool',
          targetId: tool.id,
          ip: actor?.ip,
          metadata: { client_id: tool.client_id, scopes: tool.scopes },
        },
        tx,
      );
      return tool;
    });
    return this.toDto(row);
  }

  async update(id: string, dto: UpdateLtiToolDto, actor: LtiActor): Promise<LtiToolDto> {
    const current = await this.toolOr404(id);
    const keysGiven = dto.jwks_url !== undefined || dto.public_jwk !== undefined;
    const values = await this.validated({
      name: dto.name ?? current.name,
      description: dto.description !== undefined ? dto.description : current.description,
      initiate_login_url: dto.initiate_login_url ?? current.initiate_login_url,
      redirect_uris: dto.redirect_uris ?? current.redirect_uris,
      target_link_uri: dto.target_link_uri ?? current.target_link_uri,
      deep_linking_url: dto.deep_linking_url !== undefined ? dto.deep_linking_url : current.deep_linking_url,
      jwks_url: keysGiven ? (dto.jwks_url ?? null) : current.jwks_url,
      public_jwk: keysGiven ? (dto.public_jwk ?? null) : current.public_jwk,
      scopes: dto.scopes ? [...new Set(dto.scopes)] : current.scopes,
      custom: dto.custom ?? current.custom,
      enabled: dto.enabled ?? current.enabled,
    });
    const row = await this.transactions.run(async (tx) => {
      const updated = await this.repo.updateTool(id, values, this.clock.now(), tx);
      if (!updated) throw ApiError.notFound();
      await this.audit.record(
        {
          action: 'lti_tool.updated',
          actorId: actor.userId,
          organizationId: null,
          targetType: 'lti_tool',
          targetId: id,
          ip: actor.ip,
          metadata: { fields: Object.keys(dto).sort() },
        },
        tx,
      );
      return updated;
    });
    return this.toDto(row);
  }

  async remove(id: string, actor: LtiActor): Promise<void> {
    await this.transactions.run(async (tx) => {
      if (!(await this.repo.softDeleteTool(id, this.clock.now(), tx))) throw ApiError.notFound();
      await this.audit.record(
        {
          action: 'lti_tool.deleted',
          actorId: actor.userId,
          organizationId: null,
          targetType: 'lti_tool',
          targetId: id,
          ip: actor.ip,
        },
        tx,
      );
    });
  }

  // Deployments

  async deployments(organizationId: string): Promise<{ items: LtiDeploymentDto[] }> {
    const used = await this.repo.toolsUsedBy(organizationId);
    const now = this.clock.now();
    const items: LtiDeploymentDto[] = [];
    for (const tool of used) {
      const d = await this.repo.ensureDeployment(organizationId, tool.tool_id, now);
      items.push(this.deploymentDto(d, tool.tool_name, tool.courses));
    }
    return { items };
  }

  async updateDeployment(
    organizationId: string,
    toolId: string,
    dto: UpdateLtiDeploymentDto,
    actor: LtiActor,
  ): Promise<LtiDeploymentDto> {
    const [used] = await this.repo.toolsUsedBy(organizationId, toolId);
    if (!used) throw ApiError.notFound('No course of the organization uses this tool.');
    const now = this.clock.now();
    const row = await this.transactions.run(async (tx) => {
      const current = await this.repo.ensureDeployment(organizationId, toolId, now, tx);
      const updated = await this.repo.updateDeployment(
        organizationId,
        toolId,
        {
          enabled: dto.enabled ?? current.enabled,
          send_name: dto.privacy?.send_name ?? current.send_name,
          send_email: dto.privacy?.send_email ?? current.send_email,
        },
        now,
        tx,
      );
      await this.audit.record(
        {
          action: 'lti_deployment.updated',
          actorId: actor.userId,
          organizationId,
          targetType: 'lti_tool',
          targetId: toolId,
          ip: actor.ip,
          metadata: { enabled: updated.enabled, send_name: updated.send_name, send_email: updated.send_email },
        },
        tx,
      );
      return updated;
    });
    return this.deploymentDto(row, used.tool_name, used.courses);
  }

  // Lesson links (the editor's `lti` field, the learner's lesson)

  /** 422 for an unknown or disabled tool or a bad link; run before the editor's transaction. */
  async checkLessonLink(input: LessonLtiInputDto | null | undefined): Promise<void> {
    if (!input) return;
    const tool = await this.repo.tool(input.tool_id);
    if (!tool || !tool.enabled) {
      throw ApiError.validation([{ field: 'lti.tool_id', message: 'must be an enabled LTI tool' }]);
    }
    const problems: ErrorDetail[] = this.customProblems(input.custom ?? {}, 'lti.custom');
    if (input.url !== undefined) {
      const p = await urlProblem(input.url, !this.config.isProduction);
      if (p) problems.push({ field: 'lti.url', message: p });
    }
    if (problems.length) throw ApiError.validation(problems);
  }

  /** Writes (or with null removes) the lesson's tool link, inside the editor's transaction. */
  async saveLessonLink(lessonId: string, courseId: string, input: LessonLtiInputDto | null, tx: Tx): Promise<void> {
    await this.repo.setLessonLink(
      lessonId,
      courseId,
      input
        ? {
            tool_id: input.tool_id,
            url: input.url ?? null,
            custom: input.custom ?? {},
            score_maximum: input.line_item ? String(input.line_item.score_maximum) : null,
            label: input.line_item?.label ?? null,
          }
        : null,
      tx,
    );
  }

  /** The editor's view of lessons' tool links, by lesson id. */
  async lessonLinks(lessonIds: readonly string[]): Promise<Map<string, LessonLtiDto>> {
    const rows = await this.repo.lessonLinks(lessonIds);
    return new Map(
      rows.map((r) => [
        r.lesson_id,
        {
          tool_id: r.tool_id,
          url: r.url,
          custom: r.custom,
          line_item:
            r.score_maximum !== null
              ? { score_maximum: Number(r.score_maximum), ...(r.label !== null ? { label: r.label } : {}) }
              : null,
        },
      ]),
    );
  }

  /** The learner's view of lessons' tool links in the organization, by lesson id. */
  async learnerLinks(
    organizationId: string,
    courseId: string,
    lessonIds: readonly string[],
  ): Promise<Map<string, LearnerLessonLtiDto>> {
    const rows = await this.repo.lessonLinks(lessonIds);
    const deployments = new Map(
      (await this.repo.deploymentsOf(organizationId, [...new Set(rows.map((r) => r.tool_id))])).map((d) => [
        d.tool_id,
        d,
      ]),
    );
    return new Map(
      rows.map((r) => [
        r.lesson_id,
        {
          tool_name: r.tool_name,
          launch_url:
            `${this.config.baseUrl}/api/v1/organizations/${organizationId}/courses/${courseId}` +
            `/lessons/${r.lesson_id}/lti/launch`,
          available: r.tool_enabled && (deployments.get(r.tool_id)?.enabled ?? true),
        },
      ]),
    );
  }

  /** The organization's launches (its statistics): in all (the 90 days kept) and since `since`. */
  async launchCounts(
    organizationId: string,
    since: Date,
  ): Promise<{ launches_total: number; launches_in_period: number }> {
    const [total, inPeriod] = await Promise.all([
      this.repo.countLaunches(organizationId, null),
      this.repo.countLaunches(organizationId, since),
    ]);
    return { launches_total: total, launches_in_period: inPeriod };
  }

  toDto(r: ToolRow): LtiToolDto {
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      client_id: r.client_id,
      initiate_login_url: r.initiate_login_url,
      redirect_uris: r.redirect_uris,
      target_link_uri: r.target_link_uri,
      deep_linking_url: r.deep_linking_url,
      jwks_url: r.jwks_url,
      public_jwk: r.public_jwk,
      scopes: r.scopes,
      custom: r.custom,
      enabled: r.enabled,
      registered_by: r.registered_by,
      created_by: { user_id: r.created_by },
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
      platform: {
        issuer: this.config.baseUrl,
        client_id: r.client_id,
        authorization_endpoint: `${this.config.baseUrl}/api/v1/lti/authorize`,
        token_endpoint: `${this.config.baseUrl}/api/v1/lti/token`,
        jwks_uri: `${this.config.baseUrl}/api/v1/lti/jwks`,
        deployment_ids: 'one per organization, in the launch',
      },
    };
  }

  private deploymentDto(
    d: DeploymentRow,
    toolName: string,
    courses: { course_id: string; title: string }[],
  ): LtiDeploymentDto {
    return {
      tool_id: d.tool_id,
      tool_name: toolName,
      deployment_id: d.deployment_id,
      enabled: d.enabled,
      privacy: { send_name: d.send_name, send_email: d.send_email },
      courses: [...courses].sort((a, b) => a.title.localeCompare(b.title) || a.course_id.localeCompare(b.course_id)),
      updated_at: d.updated_at.toISOString(),
    };
  }

  private async toolOr404(id: string): Promise<ToolRow> {
    const tool = await this.repo.tool(id);
    if (!tool) throw ApiError.notFound();
    return tool;
  }

  /** The rules of a tool beyond its DTO: URLs (public addresses), one key source, custom parameters. 422 otherwise. */
  private async validated(values: ToolValues): Promise<ToolValues> {
    const allowLoopback = !this.config.isProduction;
    const problems: ErrorDetail[] = [];
    const urls: [string, string | null][] = [
      ['initiate_login_url', values.initiate_login_url],
      ['target_link_uri', values.target_link_uri],
      ['deep_linking_url', values.deep_linking_url],
      ['jwks_url', values.jwks_url],
      ...values.redirect_uris.map((u, i): [string, string] => [`redirect_uris[${i}]`, u]),
    ];
    for (const [field, url] of urls) {
      if (url === null) continue;
      const p = await urlProblem(url, allowLoopback);
      if (p) problems.push({ field, message: p });
    }
    if ((values.jwks_url === null) === (values.public_jwk === null)) {
      problems.push({ field: 'jwks_url', message: 'exactly one of jwks_url and public_jwk is required' });
    }
    if (values.public_jwk) {
      const k = values.public_jwk;
      if (k.kty !== 'RSA' || typeof k.n !== 'string' || typeof k.e !== 'string' || 'd' in k) {
        problems.push({ field: 'public_jwk', message: 'must be an RSA public JWK (kty, n, e; no private part)' });
      }
    }
    problems.push(...this.customProblems(values.custom, 'custom'));
    if (problems.length) throw ApiError.validation(problems);
    return values;
  }

  private customProblems(custom: Record<string, unknown>, field: string): ErrorDetail[] {
    const entries = Object.entries(custom);
    const problems: ErrorDetail[] = [];
    if (entries.length > 20) problems.push({ field, message: 'at most 20 keys' });
    for (const [k, v] of entries) {
      if (!CUSTOM_KEY.test(k)) problems.push({ field: `${field}.${k}`, message: 'key must match ^[a-z0-9_]{1,64}$' });
      else if (typeof v !== 'string' || v.length > 256) {
        problems.push({ field: `${field}.${k}`, message: 'must be a string of at most 256 characters' });
      }
    }
    return problems;
  }
}
