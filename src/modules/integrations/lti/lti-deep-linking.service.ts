import { Inject, Injectable } from '@nestjs/common';
import { decodeJwt } from 'jose';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import { EditorService } from '@/modules/learning/editor';
import { LTI_CLAIM, NONCE_TTL } from './lti-constants';
import { LtiLaunchService } from './lti-launch.service';
import { LtiRepository } from './lti.repository';
import { LtiTokenService } from './lti-token.service';

const MAX_ITEMS = 50;

/** Why a deep-linking response is refused (shown to the editor on a 400 page). */
export class DeepLinkingRefusal extends Error {}

interface ResourceLinkItem {
  type?: unknown;
  title?: unknown;
  text?: unknown;
  url?: unknown;
  custom?: unknown;
  lineItem?: { scoreMaximum?: unknown; label?: unknown };
}

/**
 * The return of a Deep Linking 2.0 request (extensions-v3 1.4): the tool's signed `LtiDeepLinkingResponse`; each
 * `ltiResourceLink` becomes a lesson appended to the course through the editor area's service.
 */
@Injectable()
export class LtiDeepLinkingService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: LtiRepository,
    private readonly tokens: LtiTokenService,
    private readonly launch: LtiLaunchService,
    private readonly editor: EditorService,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  /** Creates the lessons and answers where the editor goes next. */
  async receive(jwt: unknown, ip?: string): Promise<string> {
    if (typeof jwt !== 'string' || !jwt) throw new DeepLinkingRefusal('signature: the JWT form field is missing.');
    let iss: string | undefined;
    try {
      iss = decodeJwt(jwt).iss;
    } catch {
      throw new DeepLinkingRefusal('signature: the response is not a JWT.');
    }
    const tool = iss ? await this.repo.toolByClientId(iss) : null;
    if (!tool) throw new DeepLinkingRefusal('signature: unknown tool.');
    let payload: Record<string, unknown>;
    try {
      payload = await this.tokens.verifyToolJwt(tool, jwt, [this.config.baseUrl]);
    } catch (err) {
      const code = (err as { code?: string; claim?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') throw new DeepLinkingRefusal('expired: the response has expired.');
      if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && (err as { claim?: string }).claim === 'aud') {
        throw new DeepLinkingRefusal('audience: the response is not addressed to this platform.');
      }
      throw new DeepLinkingRefusal('signature: the response signature does not verify.');
    }
    if (payload[LTI_CLAIM.messageType] !== 'LtiDeepLinkingResponse') {
      throw new DeepLinkingRefusal('data: not an LtiDeepLinkingResponse.');
    }
    if (payload[LTI_CLAIM.deploymentId] !== this.launch.defaultDeploymentId(tool)) {
      throw new DeepLinkingRefusal('data: unknown deployment_id.');
    }
    const rawData = payload[LTI_CLAIM.deepLinkingData];
    const data = typeof rawData === 'string' ? this.launch.verifyData(rawData) : null;
    if (!data || data.t !== tool.id)
      throw new DeepLinkingRefusal('data: the data claim is missing, altered or expired.');
    const nonce = payload.nonce;
    const now = this.clock.now();
    if (typeof nonce !== 'string' || !nonce) throw new DeepLinkingRefusal('replayed: the response has no nonce.');
    if (!(await this.repo.useOnce(`dl:${tool.id}`, nonce, new Date(now.getTime() + NONCE_TTL * 1000), now))) {
      throw new DeepLinkingRefusal('replayed: this response was already received.');
    }
    const items = Array.isArray(payload[LTI_CLAIM.deepLinkingContentItems])
      ? (payload[LTI_CLAIM.deepLinkingContentItems] as ResourceLinkItem[])
      : [];
    if (items.length > MAX_ITEMS) throw new DeepLinkingRefusal(`data: at most ${MAX_ITEMS} items.`);
    let added = 0;
    let skipped = 0;
    for (const item of items) {
      if (item?.type !== 'ltiResourceLink') {
        skipped++;
        continue;
      }
      const title =
        typeof item.title === 'string' && item.title.trim() ? item.title.trim().slice(0, 200) : 'External activity';
      const scoreMaximum = Number(item.lineItem?.scoreMaximum);
      const custom =
        item.custom && typeof item.custom === 'object'
          ? Object.fromEntries(
              Object.entries(item.custom).filter(([, v]) => typeof v === 'string') as [string, string][],
            )
          : undefined;
      try {
        await this.editor.createLesson(data.c, {
          title,
          content_md: typeof item.text === 'string' ? item.text.slice(0, 100000) : '',
          lti: {
            tool_id: tool.id,
            ...(typeof item.url === 'string' ? { url: item.url } : {}),
            ...(custom ? { custom } : {}),
            ...(scoreMaximum >= 1 && scoreMaximum <= 1000
              ? {
                  line_item: {
                    score_maximum: scoreMaximum,
                    ...(typeof item.lineItem?.label === 'string' && item.lineItem.label
                      ? { label: item.lineItem.label.slice(0, 120) }
                      : {}),
                  },
                }
              : {}),
          },
        });
        added++;
      } catch (err) {
        if (err instanceof ApiError && err.status === 422) skipped++;
        else if (err instanceof ApiError && err.status === 404)
          throw new DeepLinkingRefusal('data: the course is gone.');
        else throw err;
      }
    }
    await this.audit.record({
      action: 'lti.deep_link_received',
      actorId: data.u,
      organizationId: null,
      targetType: 'course',
      targetId: data.c,
      ip,
      metadata: { tool_id: tool.id, added, skipped },
    });
    return `${this.config.webUrl}/editor/courses/${data.c}?lti_added=${added}`;
  }
}
