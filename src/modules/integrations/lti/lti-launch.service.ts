import { Inject, Injectable, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { buildInfo } from '@/core/build-info';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { ApiError } from '@/core/http/api-error';
import { GuardianConsentResolver, type Membership } from '@/core/auth/tenancy';
import {
  AGS_SCOPES,
  ID_TOKEN_TTL,
  LOGIN_HINT_TTL,
  LTI_CLAIM,
  LTI_SCOPE,
  type LtiMessageType,
  ltiRoles,
  NONCE_TTL,
  PRODUCT_FAMILY_CODE,
  DEEP_LINKING_DATA_TTL,
} from './lti-constants';
import { LtiKeysService } from './lti-keys.service';
import { LtiRepository, type ResourceLinkState, type ToolRow } from './lti.repository';

/** What the login hint binds: the person, the session, the tool and what is launched. */
interface LoginHint {
  m: LtiMessageType;
  u: string;
  s: string;
  t: string;
  /** organization (resource link launches) */
  o?: string;
  /** course */
  c: string;
  /** lesson (resource link launches) */
  l?: string;
  exp: number;
}

/** An OIDC error the tool receives at its redirect URI. */
export class AuthorizeFailure extends Error {
  constructor(
    readonly error: 'login_required' | 'invalid_request' | 'unauthorized_client' | 'access_denied',
    readonly description: string,
  ) {
    super(description);
  }
}

/** A request the platform cannot answer at a redirect URI (unknown client or unregistered redirect URI): 400 HTML. */
export class AuthorizeRefusal extends Error {}

export interface AuthorizeParams {
  scope?: string;
  response_type?: string;
  response_mode?: string;
  prompt?: string;
  client_id?: string;
  redirect_uri?: string;
  login_hint?: string;
  lti_message_hint?: string;
  state?: string;
  nonce?: string;
}

export interface AuthorizeAnswer {
  redirectUri: string;
  fields: Record<string, string>;
}

/**
 * The launch (extensions-v3 1.3): the platform's third-party-initiated login toward the tool, then the OIDC
 * authentication request back from it, answered with a signed id_token posted to the tool's redirect URI.
 */
@Injectable()
export class LtiLaunchService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: LtiRepository,
    private readonly keys: LtiKeysService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    @Optional() @Inject(GuardianConsentResolver) private readonly consent: GuardianConsentResolver | null,
  ) {}

  /** The URL of the tool's login initiation for a learner (or staff member) opening the lesson. */
  async launchUrl(member: Membership, sessionId: string, courseId: string, lessonId: string): Promise<string> {
    const start = await this.repo.launchStart(member.organizationId, courseId, lessonId, member.userId);
    if (!start) throw ApiError.notFound();
    if (member.role === 'student' && !start.enrolled) {
      throw ApiError.forbidden('Enroll in the course first.', 'not_enrolled');
    }
    // A launch hands the person to a third party: a minor needs their guardian's consent, as for learning's writes.
    if (start.minor && !(await this.consent?.hasConsent(member.userId, member.organizationId))) {
      throw ApiError.forbidden('This needs your guardian’s consent first.', 'guardian_consent_required');
    }
    const tool = start.tool;
    if (!tool || !tool.enabled) throw unavailable();
    const deployment =
      start.deployment ?? (await this.repo.ensureDeployment(member.organizationId, tool.id, this.clock.now()));
    if (!deployment.enabled) throw unavailable();
    const hint = this.signHint({
      m: 'LtiResourceLinkRequest',
      u: member.userId,
      s: sessionId,
      t: tool.id,
      o: member.organizationId,
      c: courseId,
      l: lessonId,
      exp: this.clock.nowSeconds() + LOGIN_HINT_TTL,
    });
    return this.loginUrl(tool, hint, lessonId, start.link_url ?? tool.target_link_uri, deployment.deployment_id);
  }

  /** The URL of the tool's login initiation for an editor choosing content (Deep Linking), default deployment. */
  async deepLinkingUrl(userId: string, sessionId: string, courseId: string, toolId: string): Promise<string> {
    const course = await this.repo.course(courseId);
    if (!course) throw ApiError.notFound();
    const tool = await this.repo.tool(toolId);
    if (!tool) throw ApiError.notFound();
    if (!tool.enabled) throw unavailable();
    const hint = this.signHint({
      m: 'LtiDeepLinkingRequest',
      u: userId,
      s: sessionId,
      t: tool.id,
      c: courseId,
      exp: this.clock.nowSeconds() + LOGIN_HINT_TTL,
    });
    return this.loginUrl(
      tool,
      hint,
      'deep-linking',
      tool.deep_linking_url ?? tool.target_link_uri,
      this.defaultDeploymentId(tool),
    );
  }

  /**
   * Checks the tool's authentication request. Throws AuthorizeRefusal when there is no registered redirect URI to
   * answer at, AuthorizeFailure (answered at the redirect URI) for everything else.
   */
  async authorize(
    params: AuthorizeParams,
    session: { userId: string; sessionId: string } | null,
  ): Promise<AuthorizeAnswer> {
    // A resource-link launch's hint names what its id_token needs: read with the tool, in one statement (used only
    // once every check below passed, as before).
    const hint = params.login_hint ? this.verifyHint(params.login_hint) : null;
    let prefetched: ResourceLinkState | null | undefined;
    let tool: ToolRow | null = null;
    if (params.client_id && hint?.m === 'LtiResourceLinkRequest' && hint.o && hint.l) {
      const found = await this.repo.toolWithResourceLinkState(params.client_id, {
        organizationId: hint.o,
        courseId: hint.c,
        lessonId: hint.l,
        userId: hint.u,
        toolId: hint.t,
      });
      tool = found?.tool ?? null;
      prefetched = found?.state;
    } else if (params.client_id) {
      tool = await this.repo.toolByClientId(params.client_id);
    }
    if (!tool) throw new AuthorizeRefusal('Unknown client_id.');
    if (!params.redirect_uri || !tool.redirect_uris.includes(params.redirect_uri)) {
      throw new AuthorizeRefusal('The redirect_uri is not registered for this tool.');
    }
    const redirectUri = params.redirect_uri;
    const state = params.state;
    try {
      const fields = await this.idTokenFields(tool, params, session, hint, prefetched);
      return { redirectUri, fields: { ...fields, ...(state !== undefined ? { state } : {}) } };
    } catch (err) {
      if (err instanceof AuthorizeFailure) {
        return {
          redirectUri,
          fields: {
            error: err.error,
            error_description: err.description,
            ...(state !== undefined ? { state } : {}),
          },
        };
      }
      throw err;
    }
  }

  private async idTokenFields(
    tool: ToolRow,
    p: AuthorizeParams,
    session: { userId: string; sessionId: string } | null,
    verifiedHint: LoginHint | null,
    prefetched: ResourceLinkState | null | undefined,
  ): Promise<{ id_token: string }> {
    if (p.scope?.split(' ').includes('openid') !== true)
      throw new AuthorizeFailure('invalid_request', 'scope must include openid.');
    if (p.response_type !== 'id_token')
      throw new AuthorizeFailure('invalid_request', 'response_type must be id_token.');
    if (p.response_mode !== 'form_post')
      throw new AuthorizeFailure('invalid_request', 'response_mode must be form_post.');
    if (p.prompt !== undefined && p.prompt !== 'none')
      throw new AuthorizeFailure('invalid_request', 'prompt must be none.');
    if (!p.nonce) throw new AuthorizeFailure('invalid_request', 'nonce is required.');
    if (!p.login_hint) throw new AuthorizeFailure('invalid_request', 'login_hint is required.');
    const hint = verifiedHint;
    if (!hint) throw new AuthorizeFailure('invalid_request', 'The login_hint is invalid or expired.');
    if (hint.t !== tool.id)
      throw new AuthorizeFailure('unauthorized_client', 'The login_hint was issued to another tool.');
    if (!session || session.userId !== hint.u || session.sessionId !== hint.s) {
      throw new AuthorizeFailure('login_required', 'Sign in as the person who started the launch.');
    }
    if (!tool.enabled) throw new AuthorizeFailure('access_denied', 'The tool is disabled.');
    const claims =
      hint.m === 'LtiResourceLinkRequest'
        ? await this.resourceLinkClaims(tool, hint, prefetched)
        : await this.deepLinkingClaims(tool, hint);
    // The nonce is used, and the launch recorded, in one statement once every check passed; then the signature.
    const now = this.clock.now();
    const fresh = await this.repo.useNonceAndRecordLaunch(
      { kind: `auth:${tool.id}`, value: p.nonce, expiresAt: new Date(now.getTime() + NONCE_TTL * 1000) },
      {
        toolId: tool.id,
        organizationId: hint.o ?? null,
        lessonId: hint.l ?? null,
        userId: hint.u,
        messageType: hint.m,
        at: now,
      },
    );
    if (!fresh) throw new AuthorizeFailure('invalid_request', 'The nonce was already used.');
    const idToken = await this.keys.sign(
      { iss: this.config.baseUrl, aud: tool.client_id, azp: tool.client_id, sub: hint.u, nonce: p.nonce, ...claims },
      ID_TOKEN_TTL,
    );
    return { id_token: idToken };
  }

  /** `prefetched`: the state read with the tool (for this hint and tool); undefined when not read yet. */
  private async resourceLinkClaims(
    tool: ToolRow,
    hint: LoginHint,
    prefetched: ResourceLinkState | null | undefined,
  ): Promise<Record<string, unknown>> {
    const organizationId = hint.o as string;
    const lessonId = hint.l as string;
    const state =
      prefetched !== undefined
        ? prefetched
        : await this.repo.resourceLinkState(organizationId, hint.c, lessonId, hint.u, tool.id);
    const person = state?.person;
    if (!state || !person) throw new AuthorizeFailure('access_denied', 'The lesson or the membership is gone.');
    const target = state;
    if (target.link.tool_id !== tool.id)
      throw new AuthorizeFailure('access_denied', 'The lesson no longer uses this tool.');
    const deployment =
      state.deployment ?? (await this.repo.ensureDeployment(organizationId, tool.id, this.clock.now()));
    if (!deployment.enabled) throw new AuthorizeFailure('access_denied', 'The deployment is disabled.');
    const contextId = state.context_id ?? (await this.repo.ensureContext(organizationId, hint.c));
    const orgName = state.organization_name;
    const sendName = deployment.send_name && person.name !== null;
    const sendEmail = deployment.send_email && !person.minor;
    const vars: Record<string, string | null> = {
      '$User.id': person.id,
      '$Context.id': contextId,
      '$ResourceLink.id': lessonId,
      '$Person.name.full': sendName ? person.name : null,
      '$Person.email.primary': sendEmail ? person.email : null,
    };
    const custom = substitute({ ...tool.custom, ...target.link.custom }, vars);
    const services = `${this.config.baseUrl}/api/v1/lti/contexts/${contextId}`;
    const agsScopes = tool.scopes.filter((s) => AGS_SCOPES.includes(s));
    const lineItemId =
      target.link.score_maximum === null
        ? null
        : state.line_item_id && state.context_id
          ? `${services}/lineitems/${state.line_item_id}`
          : await this.lessonLineItemUrl(tool, contextId, organizationId, target);
    return {
      [LTI_CLAIM.messageType]: 'LtiResourceLinkRequest',
      [LTI_CLAIM.version]: '1.3.0',
      [LTI_CLAIM.deploymentId]: deployment.deployment_id,
      [LTI_CLAIM.targetLinkUri]: target.link.url ?? tool.target_link_uri,
      [LTI_CLAIM.resourceLink]: { id: lessonId, title: target.lesson_title },
      [LTI_CLAIM.roles]: ltiRoles(person.role),
      [LTI_CLAIM.context]: {
        id: contextId,
        label: target.course_slug,
        title: target.course_title,
        type: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'],
      },
      [LTI_CLAIM.toolPlatform]: {
        guid: organizationId,
        name: orgName,
        product_family_code: PRODUCT_FAMILY_CODE,
        version: buildInfo().version,
      },
      [LTI_CLAIM.launchPresentation]: {
        document_target: 'window',
        return_url: `${this.config.webUrl}/courses/${target.course_slug}/lessons/${lessonId}`,
        locale: person.locale,
      },
      [LTI_CLAIM.custom]: custom,
      ...(sendName ? nameClaims(person.name as string) : {}),
      ...(sendEmail ? { email: person.email } : {}),
      ...(agsScopes.length
        ? {
            [LTI_CLAIM.ags]: {
              scope: agsScopes,
              lineitems: `${services}/lineitems`,
              ...(lineItemId ? { lineitem: lineItemId } : {}),
            },
          }
        : {}),
      ...(tool.scopes.includes(LTI_SCOPE.membership)
        ? { [LTI_CLAIM.nrps]: { context_memberships_url: `${services}/memberships`, service_versions: ['2.0'] } }
        : {}),
    };
  }

  private async deepLinkingClaims(tool: ToolRow, hint: LoginHint): Promise<Record<string, unknown>> {
    const [course, user] = await Promise.all([this.repo.course(hint.c), this.repo.user(hint.u)]);
    if (!course || !user) throw new AuthorizeFailure('access_denied', 'The course is gone.');
    const data = this.signData({
      c: hint.c,
      u: hint.u,
      t: tool.id,
      exp: this.clock.nowSeconds() + DEEP_LINKING_DATA_TTL,
    });
    return {
      [LTI_CLAIM.messageType]: 'LtiDeepLinkingRequest',
      [LTI_CLAIM.version]: '1.3.0',
      [LTI_CLAIM.deploymentId]: this.defaultDeploymentId(tool),
      [LTI_CLAIM.targetLinkUri]: tool.deep_linking_url ?? tool.target_link_uri,
      [LTI_CLAIM.roles]: [
        'http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper',
        'http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator',
      ],
      [LTI_CLAIM.context]: {
        id: course.id,
        label: course.slug,
        title: course.title,
        type: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'],
      },
      [LTI_CLAIM.toolPlatform]: {
        guid: this.config.baseUrl,
        product_family_code: PRODUCT_FAMILY_CODE,
        version: buildInfo().version,
      },
      [LTI_CLAIM.deepLinkingSettings]: {
        deep_link_return_url: `${this.config.baseUrl}/api/v1/lti/deep-linking/return`,
        accept_types: ['ltiResourceLink'],
        accept_presentation_document_targets: ['window', 'iframe'],
        accept_multiple: true,
        auto_create: true,
        data,
      },
    };
  }

  /** The line item of a lesson's link in this context (created at first use). */
  private async lessonLineItemUrl(
    tool: ToolRow,
    contextId: string,
    organizationId: string,
    target: { lesson_id: string; lesson_title: string; link: { score_maximum: string | null; label: string | null } },
  ): Promise<string> {
    const id = await this.repo.ensureLessonLineItem({
      toolId: tool.id,
      contextId,
      organizationId,
      lessonId: target.lesson_id,
      label: target.link.label ?? target.lesson_title.slice(0, 120),
      scoreMaximum: Number(target.link.score_maximum),
      now: this.clock.now(),
    });
    return `${this.config.baseUrl}/api/v1/lti/contexts/${contextId}/lineitems/${id}`;
  }

  /** The deployment id a dynamically registered tool was told, used where no organization is involved. */
  defaultDeploymentId(tool: ToolRow): string {
    return tool.client_id;
  }

  private loginUrl(
    tool: Pick<ToolRow, 'initiate_login_url' | 'client_id'>,
    hint: string,
    messageHint: string,
    targetLinkUri: string,
    deploymentId: string,
  ): string {
    const url = new URL(tool.initiate_login_url);
    // One serialization of the query (each `url.searchParams.set` would write the URL's query again).
    const query = new URLSearchParams(url.search);
    query.set('iss', this.config.baseUrl);
    query.set('login_hint', hint);
    query.set('lti_message_hint', messageHint);
    query.set('target_link_uri', targetLinkUri);
    query.set('client_id', tool.client_id);
    query.set('lti_deployment_id', deploymentId);
    url.search = query.toString();
    return url.toString();
  }

  private signHint(hint: LoginHint): string {
    return this.seal('lti.login_hint', hint);
  }

  private verifyHint(token: string): LoginHint | null {
    return this.unseal<LoginHint>('lti.login_hint', token);
  }

  /** The deep-linking `data` (signed: course, person, tool; 1 hour). */
  signData(data: { c: string; u: string; t: string; exp: number }): string {
    return this.seal('lti.deep_linking_data', data);
  }

  verifyData(token: string): { c: string; u: string; t: string; exp: number } | null {
    return this.unseal('lti.deep_linking_data', token);
  }

  private seal(purpose: string, payload: object): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.crypto.keyedHash(purpose, body)}`;
  }

  private unseal<T extends { exp: number }>(purpose: string, token: string): T | null {
    const [body, mac] = token.split('.');
    if (!body || !mac || !this.crypto.safeEqual(mac, this.crypto.keyedHash(purpose, body))) return null;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
      return payload.exp > this.clock.nowSeconds() ? payload : null;
    } catch {
      return null;
    }
  }
}

function unavailable(): ApiError {
  return ApiError.conflict('lti_tool_unavailable', 'The tool, or this organization’s deployment of it, is disabled.');
}

function nameClaims(full: string): Record<string, string> {
  const parts = full.trim().split(/\s+/);
  return { name: full, given_name: parts[0], family_name: parts.length > 1 ? parts.slice(1).join(' ') : '' };
}

/** Substitution variables (an unknown one, or one withheld by privacy, passes through unchanged). */
function substitute(custom: Record<string, string>, vars: Record<string, string | null>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(custom)) {
    const value = vars[v];
    out[k] = value !== undefined && value !== null ? value : v;
  }
  return out;
}
