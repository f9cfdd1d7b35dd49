import { request as httpRequest } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import webpush, { WebPushError } from 'web-push';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';

export interface WebPushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface WebPushOptions {
  topic: string;
  urgency: 'normal' | 'high';
}

/** The push service's answer: delivered, gone (404/410: delete the subscription), retry (429/5xx) or rejected. */
export type PushOutcome = 'sent' | 'gone' | 'retry' | 'rejected';

export function outcomeOf(status: number): PushOutcome {
  if (status >= 200 && status < 300) return 'sent';
  if (status === 404 || status === 410) return 'gone';
  if (status === 429 || status >= 500) return 'retry';
  return 'rejected';
}

/**
 * Web push through the `web-push` package (VAPID, aes128gcm; extensions-v2 13.3). `sendNotification` speaks only
 * https; for an `http` loopback endpoint (tests, outside production) the same request is built with
 * `generateRequestDetails` (same VAPID headers and encrypted body) and sent over plain http.
 */
@Injectable()
export class WebPushSender {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get enabled(): boolean {
    return this.config.push.vapid !== null;
  }

  async send(target: WebPushTarget, payload: string, options: WebPushOptions): Promise<{ status: number }> {
    const vapid = this.config.push.vapid;
    if (!vapid) throw new Error('Web push is not configured');
    const subscription = { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } };
    const requestOptions = {
      vapidDetails: { subject: vapid.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
      TTL: 86_400,
      urgency: options.urgency,
      topic: options.topic,
      contentEncoding: 'aes128gcm' as const,
      timeout: 10_000,
    };
    if (new URL(target.endpoint).protocol === 'https:') {
      try {
        const res = await webpush.sendNotification(subscription, payload, requestOptions);
        return { status: res.statusCode };
      } catch (err) {
        if (err instanceof WebPushError) return { status: err.statusCode };
        throw err;
      }
    }
    const details = webpush.generateRequestDetails(subscription, payload, requestOptions);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        details.endpoint,
        { method: details.method, headers: details.headers, timeout: 10_000 },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('push request timed out')));
      req.on('error', reject);
      req.end(details.body ?? undefined);
    });
  }
}
