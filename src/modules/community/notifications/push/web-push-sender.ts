import { request as httpRequest } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import webpush, { WebPushError } from 'web-push';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AddressRefused, GuardedNet } from '@/core/net/guarded-net';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

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
 * `generateRequestDetails` (same VAPID headers and encrypted body) and sent over plain http, to a loopback host only.
 * Both go through the core's guarded agents: the address is checked in the connection's own look-up (extensions-v3
 * 6.7), so a name that resolves elsewhere at delivery than at registration never reaches a private address; such a
 * delivery rejects with `AddressRefused`.
 */
@Injectable()
export class WebPushSender {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly net: GuardedNet,
  ) {}

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
      agent: this.net.httpsAgent,
    };
    const url = new URL(target.endpoint);
    if (url.protocol === 'https:') {
      try {
        const res = await webpush.sendNotification(subscription, payload, requestOptions);
        return { status: res.statusCode };
      } catch (err) {
        if (err instanceof WebPushError) return { status: err.statusCode };
        throw err;
      }
    }
    if (!this.net.allowLoopback || !LOOPBACK_HOSTS.has(url.hostname.toLowerCase())) {
      throw new AddressRefused('plain http push endpoints are allowed on loopback only, outside production');
    }
    const details = webpush.generateRequestDetails(subscription, payload, requestOptions);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        details.endpoint,
        { method: details.method, headers: details.headers, timeout: 10_000, agent: this.net.httpAgent },
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
