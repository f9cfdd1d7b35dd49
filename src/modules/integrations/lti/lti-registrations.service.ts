import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { buildInfo } from '@/core/build-info';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { LTI_SCOPES, PRODUCT_FAMILY_CODE, REGISTRATION_TTL } from './lti-constants';
import { LtiRepository } from './lti.repository';
import { LtiServiceError } from './lti-service-errors';
import { type LtiActor, LtiToolsService } from './lti-tools.service';
import { urlProblem } from './lti-outbound';

const TOOL_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-tool-configuration';
const PLATFORM_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-platform-configuration';

/** LTI Dynamic Registration 1.0: the platform's side (a one-hour, single-use registration token per attempt). */
@Injectable()
export class LtiRegistrationsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: LtiRepository,
    private readonly tools: LtiToolsService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
  ) {}

  async start(initiationUrl: string, actor: LtiActor): Promise<{ id: string; launch_url: string; expires_at: string }> {
    const problem = await urlProblem(initiationUrl, !this.config.isProduction);
    if (problem) throw ApiError.validation([{ field: 'initiation_url', message: problem }]);
    const token = this.crypto.randomToken(32);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + REGISTRATION_TTL * 1000);
    const id = await this.repo.insertRegistration(
      this.crypto.sha256(token),
      initiationUrl,
      expiresAt,
      actor.userId,
      now,
    );
    const url = new URL(initiationUrl);
    url.searchParams.set('openid_configuration', `${this.base()}/registrations/${id}/openid-configuration`);
    url.searchParams.set('registration_token', token);
    return { id, launch_url: url.toString(), expires_at: expiresAt.toISOString() };
  }

  async openIdConfiguration(id: string): Promise<Record<string, unknown>> {
    const reg = isUuid(id) ? await this.repo.registration(id.toLowerCase()) : null;
    if (!reg || reg.used_at || reg.expires_at <= this.clock.now()) throw ApiError.notFound();
    const base = this.base();
    return {
      issuer: this.config.baseUrl,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['RS256'],
      jwks_uri: `${base}/jwks`,
      registration_endpoint: `${base}/registrations/${reg.id}/register`,
      scopes_supported: ['openid', ...LTI_SCOPES],
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: ['iss', 'aud', 'sub', 'name', 'given_name', 'family_name', 'email'],
      [PLATFORM_CONFIGURATION]: {
        product_family_code: PRODUCT_FAMILY_CODE,
        version: buildInfo().version,
        messages_supported: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest' }],
        variables: ['User.id', 'Context.id', 'ResourceLink.id', 'Person.name.full', 'Person.email.primary'],
      },
    };
  }

  /** The tool's client registration (RFC 7591 with the LTI tool configuration claim). */
  async register(id: string, authorization: string | undefined, body: unknown): Promise<Record<string, unknown>> {
    const m = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(authorization ?? '');
    const reg = isUuid(id) ? await this.repo.registration(id.toLowerCase()) : null;
    const now = this.clock.now();
    if (
      !m ||
      !reg ||
      reg.used_at ||
      reg.expires_at <= now ||
      !this.crypto.safeEqual(reg.token_hash, this.crypto.sha256(m[1]))
    ) {
      throw new LtiServiceError(401, 'invalid_token', 'The registration token is invalid, used or expired.');
    }
    const b = (body ?? {}) as Record<string, unknown>;
    const ltiConf = (b[TOOL_CONFIGURATION] ?? {}) as Record<string, unknown>;
    const redirectUris = Array.isArray(b.redirect_uris) ? b.redirect_uris.filter((u) => typeof u === 'string') : [];
    const messages = Array.isArray(ltiConf.messages) ? (ltiConf.messages as Record<string, unknown>[]) : [];
    const deepLinking = messages.find((msg) => msg.type === 'LtiDeepLinkingRequest');
    const scopes = typeof b.scope === 'string' ? b.scope.split(' ').filter((s) => LTI_SCOPES.includes(s)) : [];
    const custom = (ltiConf.custom_parameters ?? {}) as Record<string, string>;
    const name =
      typeof b.client_name === 'string' && b.client_name.trim() ? b.client_name.trim().slice(0, 120) : 'LTI tool';
    if (
      typeof b.initiate_login_uri !== 'string' ||
      typeof b.jwks_uri !== 'string' ||
      typeof ltiConf.target_link_uri !== 'string'
    ) {
      throw new LtiServiceError(
        400,
        'invalid_client_metadata',
        'initiate_login_uri, jwks_uri and target_link_uri are required.',
      );
    }
    if (redirectUris.length < 1 || redirectUris.length > 10) {
      throw new LtiServiceError(400, 'invalid_redirect_uri', 'Between 1 and 10 redirect_uris are required.');
    }
    let tool;
    try {
      tool = await this.tools.create(
        {
          name,
          description: typeof ltiConf.description === 'string' ? ltiConf.description.slice(0, 500) : null,
          initiate_login_url: b.initiate_login_uri,
          redirect_uris: redirectUris,
          target_link_uri: ltiConf.target_link_uri,
          deep_linking_url: typeof deepLinking?.target_link_uri === 'string' ? deepLinking.target_link_uri : null,
          jwks_url: b.jwks_uri,
          scopes,
          custom,
        },
        reg.created_by ? { userId: reg.created_by } : null,
        'dynamic',
      );
    } catch (err) {
      if (err instanceof ApiError) {
        const detail = err.details?.map((d) => `${d.field} ${d.message}`).join('; ') ?? err.message;
        const redirect = err.details?.some((d) => d.field.startsWith('redirect_uris'));
        throw new LtiServiceError(400, redirect ? 'invalid_redirect_uri' : 'invalid_client_metadata', detail);
      }
      throw err;
    }
    await this.repo.markRegistrationUsed(reg.id, tool.id, now);
    return {
      ...b,
      client_id: tool.client_id,
      scope: tool.scopes.join(' '),
      [TOOL_CONFIGURATION]: { ...ltiConf, deployment_id: tool.client_id },
    };
  }

  private base(): string {
    return `${this.config.baseUrl}/api/v1/lti`;
  }
}
