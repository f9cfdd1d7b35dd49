import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';

/** Standard Webhooks' tolerance: a message signed more than 5 minutes from now (either way) is refused. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;
const ID_MAX = 256;
const TIMESTAMP = /^\d{1,12}$/;

/** A verified message: its id (the replay key) and the time it was signed. */
export interface VerifiedMessage {
  id: string;
  timestamp: number;
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * Verifies Standard Webhooks signatures (extensions-v2 22.1) with the `standardwebhooks` package against every
 * configured secret (several during a rotation). The package checks the timestamp against `Date.now()`; each check
 * runs with its timestamp rule bound to the injected Clock instead, so the 5-minute window is the service's time
 * (tests move it) while the signature scheme, the `v1,` list and the constant-time comparison stay the package's.
 */
@Injectable()
export class WebhookSignatures {
  private readonly logger = new Logger('EmailWebhooks');
  private readonly webhooks: readonly Webhook[];

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.webhooks = config.emailWebhookSecrets.map((secret, i) => {
      try {
        return new Webhook(secret);
      } catch (err) {
        throw new Error(`EMAIL_WEBHOOK_SECRET: secret ${i + 1} is not a whsec_ base64 secret`, { cause: err });
      }
    });
  }

  /** Without a secret the route is switched off (404 `feature_disabled`). */
  get enabled(): boolean {
    return this.webhooks.length > 0;
  }

  /**
   * Steps 1 to 3 of 22.1, in order: the three headers (`webhook-id` 1..256, `webhook-timestamp` integer seconds,
   * `webhook-signature`), the timestamp within 300 seconds of the Clock, one `v1` signature matching one secret.
   * Any failure is 401 `invalid_signature` (the reason is logged, never answered).
   */
  verify(headers: IncomingHttpHeaders, body: Buffer): VerifiedMessage {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signature = header(headers, 'webhook-signature');
    if (!id || id.length > ID_MAX || !timestamp || !TIMESTAMP.test(timestamp) || !signature) {
      return this.refuse('missing or malformed headers');
    }
    const signed = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
    let reason = 'no matching signature';
    for (const webhook of this.webhooks) {
      try {
        this.onClock(webhook).verify(body, signed, { jsonParse: false });
        return { id, timestamp: Number(timestamp) };
      } catch (err) {
        if (!(err instanceof WebhookVerificationError)) throw err;
        reason = err.message;
      }
    }
    return this.refuse(reason);
  }

  /**
   * The package's verifier with its timestamp rule on the Clock: an object whose prototype is the configured
   * Webhook (key and signing inherited) and whose own `verifyTimestamp` compares with the Clock.
   */
  private onClock(webhook: Webhook): Webhook {
    const verifyTimestamp = (value: string): Date => {
      const now = this.clock.nowSeconds();
      const at = Number(value);
      if (now - at > TIMESTAMP_TOLERANCE_SECONDS) throw new WebhookVerificationError('Message timestamp too old');
      if (at > now + TIMESTAMP_TOLERANCE_SECONDS) throw new WebhookVerificationError('Message timestamp too new');
      return new Date(at * 1000);
    };
    return Object.create(webhook, { verifyTimestamp: { value: verifyTimestamp } }) as Webhook;
  }

  private refuse(reason: string): never {
    this.logger.warn({ reason }, 'Email webhook refused');
    throw ApiError.unauthorized('The webhook signature or timestamp is not valid.', 'invalid_signature');
  }
}
