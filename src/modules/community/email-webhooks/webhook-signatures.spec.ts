import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { AppConfig } from '@/config/app-config';
import { Clock, ManualClock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import { WebhookSignatures } from './webhook-signatures';

const secret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

function signatures(secrets: string[], clock: Clock = new ManualClock()): WebhookSignatures {
  return new WebhookSignatures({ emailWebhookSecrets: secrets } as unknown as AppConfig, clock);
}

/** Headers signed by the package's own signer at `at` (seconds). */
function signed(key: string, id: string, at: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(at),
    'webhook-signature': new Webhook(key).sign(id, new Date(at * 1000), body),
  };
}

function refusal(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return `${(err as ApiError).status} ${(err as ApiError).code}`;
  }
}

/** A clock that stands still: window edges are checked to the second, so the clock must not cross one meanwhile. */
class StoppedClock extends Clock {
  private readonly at = new Date();
  override now(): Date {
    return new Date(this.at);
  }
}

describe('WebhookSignatures (Standard Webhooks, extensions-v2 22.1)', () => {
  const body = '{"type":"email.delivered","data":{"to":["a@example.org"]}}';

  it('is off without secrets', () => {
    expect(signatures([]).enabled).toBe(false);
    expect(signatures([secret()]).enabled).toBe(true);
  });

  it('refuses a malformed secret at start, naming the setting', () => {
    expect(() => signatures(['whsec_'])).toThrow(/EMAIL_WEBHOOK_SECRET/);
  });

  it('accepts a message signed by the package with a configured secret, by the Clock rather than the wall clock', () => {
    const key = secret();
    const clock = new ManualClock();
    clock.advance(3 * 86_400_000); // three days ahead of the wall clock
    const verifier = signatures([key], clock);
    const at = clock.nowSeconds();
    expect(verifier.verify(signed(key, 'msg_1', at, body), Buffer.from(body))).toEqual({ id: 'msg_1', timestamp: at });
  });

  it('accepts any secret of a rotation, and any v1 entry of the signature list', () => {
    const [old, current] = [secret(), secret()];
    const clock = new ManualClock();
    const verifier = signatures([old, current], clock);
    const at = clock.nowSeconds();
    expect(verifier.verify(signed(old, 'msg_old', at, body), Buffer.from(body)).id).toBe('msg_old');
    const headers = signed(current, 'msg_new', at, body);
    headers['webhook-signature'] = `v1,${Buffer.alloc(32).toString('base64')} v2,abc ${headers['webhook-signature']}`;
    expect(verifier.verify(headers, Buffer.from(body)).id).toBe('msg_new');
  });

  it('keeps the window at exactly 300 seconds either way', () => {
    const key = secret();
    const clock = new StoppedClock();
    const verifier = signatures([key], clock);
    const now = clock.nowSeconds();
    for (const at of [now - 300, now + 300]) {
      expect(refusal(() => verifier.verify(signed(key, `m${at}`, at, body), Buffer.from(body)))).toBeNull();
    }
    for (const at of [now - 301, now + 301]) {
      expect(refusal(() => verifier.verify(signed(key, `m${at}`, at, body), Buffer.from(body)))).toBe(
        '401 invalid_signature',
      );
    }
  });

  it('refuses another secret, a changed body, a changed id and missing or malformed headers', () => {
    const key = secret();
    const clock = new ManualClock();
    const verifier = signatures([key], clock);
    const at = clock.nowSeconds();
    const good = signed(key, 'msg_2', at, body);
    const cases: Record<string, string>[] = [
      signed(secret(), 'msg_2', at, body),
      { ...good, 'webhook-id': 'msg_3' },
      { ...good, 'webhook-timestamp': String(at + 1) },
      { ...good, 'webhook-timestamp': `${at}.5` },
      { ...good, 'webhook-timestamp': `${at}abc` },
      { ...good, 'webhook-id': 'x'.repeat(257) },
      { ...good, 'webhook-signature': good['webhook-signature'].replace('v1,', 'v2,') },
      { 'webhook-id': 'msg_2', 'webhook-timestamp': String(at) },
      { 'webhook-id': 'msg_2', 'webhook-signature': good['webhook-signature'] },
      { 'webhook-timestamp': String(at), 'webhook-signature': good['webhook-signature'] },
      { ...good, 'webhook-id': '' },
    ];
    for (const headers of cases) {
      expect(refusal(() => verifier.verify(headers, Buffer.from(body)))).toBe('401 invalid_signature');
    }
    expect(refusal(() => verifier.verify(good, Buffer.from(`${body} `)))).toBe('401 invalid_signature');
    expect(refusal(() => verifier.verify(good, Buffer.from(body)))).toBeNull();
  });
});
