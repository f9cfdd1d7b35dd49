import { Inject, Injectable } from '@nestjs/common';
import { importPKCS8, SignJWT } from 'jose';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { GuardedNet } from '@/core/net/guarded-net';
import { outcomeOf, type PushOutcome } from './web-push-sender';

export interface NativeMessage {
  token: string;
  title: string;
  body: string;
  /** Collapse key (FCM) and apns-collapse-id: the category. */
  collapseKey: string;
  data: Record<string, string>;
}

/**
 * Native push behind one interface (extensions-v2 13.3): the FCM HTTP v1 provider below, or nothing. Without
 * `FCM_CREDENTIALS`, `enabled` is false: devices are stored and nothing is sent.
 */
export abstract class NativePushProvider {
  abstract readonly enabled: boolean;
  abstract send(message: NativeMessage): Promise<PushOutcome>;
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/**
 * Firebase Cloud Messaging HTTP v1: an OAuth access token from the JWT bearer grant (RFC 7523, the assertion signed
 * with the service account's key by jose) posted to the credentials' `token_uri`, cached until a minute before it
 * expires; then `POST {FCM_BASE_URL}/v1/projects/<project_id>/messages:send`.
 */
@Injectable()
export class FcmProvider extends NativePushProvider {
  private token: { value: string; expiresAt: number } | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly net: GuardedNet,
  ) {
    super();
  }

  get enabled(): boolean {
    return this.config.push.fcm !== null;
  }

  async send(message: NativeMessage): Promise<PushOutcome> {
    const fcm = this.config.push.fcm;
    if (!fcm) throw new Error('FCM is not configured');
    const accessToken = await this.accessToken();
    const res = await this.net.guardedFetch(
      `${fcm.baseUrl}/v1/projects/${encodeURIComponent(fcm.projectId)}/messages:send`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          message: {
            token: message.token,
            notification: { title: message.title, body: message.body },
            data: message.data,
            android: { collapse_key: message.collapseKey },
            apns: { headers: { 'apns-collapse-id': message.collapseKey } },
          },
        }),
        signal: AbortSignal.timeout(10_000),
      },
    );
    const text = await res.text();
    if (res.status === 401) this.token = null;
    // FCM reports a dead token as 404 with errorCode UNREGISTERED (sometimes 400 with that code).
    if (text.includes('UNREGISTERED')) return 'gone';
    return outcomeOf(res.status);
  }

  private async accessToken(): Promise<string> {
    const fcm = this.config.push.fcm!;
    const now = this.clock.nowMs();
    if (this.token && this.token.expiresAt - 60_000 > now) return this.token.value;
    const key = await importPKCS8(fcm.privateKey, 'RS256');
    const iat = Math.floor(now / 1000);
    const assertion = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(fcm.clientEmail)
      .setSubject(fcm.clientEmail)
      .setAudience(fcm.tokenUri)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(key);
    const res = await this.net.guardedFetch(fcm.tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`FCM token request failed with ${res.status}`);
    const body = (await res.json()) as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new Error('FCM token response without access_token');
    this.token = { value: body.access_token, expiresAt: now + (body.expires_in ?? 3600) * 1000 };
    return body.access_token;
  }
}
