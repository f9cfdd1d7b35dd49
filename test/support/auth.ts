import type TestAgent from 'supertest/lib/agent';
import speakeasy from 'speakeasy';
import { codeFrom } from './mail-sink';
import type { TestApp } from './test-app';

export interface SignedIn {
  agent: TestAgent;
  email: string;
  user: { id: string; email: string; [k: string]: unknown };
  ip: string;
}

/** A parsed Set-Cookie header. */
export interface SetCookie {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
}

export function setCookies(res: { headers: Record<string, unknown> }): Map<string, SetCookie> {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
  const out = new Map<string, SetCookie>();
  for (const line of list) {
    const [pair, ...attrs] = line.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    const attributes: Record<string, string | true> = {};
    for (const a of attrs) {
      const i = a.indexOf('=');
      if (i < 0) attributes[a.toLowerCase()] = true;
      else attributes[a.slice(0, i).toLowerCase()] = a.slice(i + 1);
    }
    out.set(pair.slice(0, eq), {
      name: pair.slice(0, eq),
      value: decodeURIComponent(pair.slice(eq + 1)),
      attributes,
    });
  }
  return out;
}

/** Requests a sign-in code and returns it as read from the delivered email. */
export async function requestSignInCode(
  t: TestApp,
  agent: TestAgent,
  email: string,
  locale?: 'es' | 'en',
): Promise<string> {
  const before = t.mail.count();
  await agent
    .post('/api/v1/auth/otp/request')
    .send(locale ? { email, locale } : { email })
    .expect(200);
  return codeFrom(await t.mail.waitForTo(email, { after: before, subject: /código de acceso|sign-in code/ }));
}

/** Signs a new (or existing) person in through the email code, with a cookie jar and client address of their own. */
export async function signIn(
  t: TestApp,
  email = t.nextEmail(),
  options: { locale?: 'es' | 'en' } = {},
): Promise<SignedIn> {
  const ip = t.nextIp();
  const agent = t.client(ip);
  const code = await requestSignInCode(t, agent, email, options.locale);
  const res = await agent.post('/api/v1/auth/otp/verify').send({ email, code }).expect(200);
  return { agent, email, user: res.body, ip };
}

/** Completes a step-up by the emailed code (accounts without two-factor). */
export async function stepUpByEmail(t: TestApp, s: SignedIn): Promise<void> {
  const before = t.mail.count();
  const res = await s.agent.post('/api/v1/auth/step-up/request').expect(200);
  if (res.body.method !== 'email_code') throw new Error(`expected email_code, got ${res.body.method}`);
  const code = codeFrom(await t.mail.waitForTo(s.email, { after: before, subject: /Confirm|Confirma/ }));
  await s.agent.post('/api/v1/auth/step-up/verify').send({ code }).expect(204);
}

/**
 * Moves the app's clock to one second into the next TOTP step. The test clock runs with real time plus an offset, so
 * a code computed in a step's last moments may be checked in the next step: one step nearer (or further) than the
 * test meant. A test about the window's edges starts here, with 29 s before the next boundary.
 */
export function startOfTotpStep(t: TestApp): void {
  t.clock.advance(30_000 - (t.clock.nowMs() % 30_000) + 1_000);
}

/** The current TOTP code for a base32 secret at the test clock's time (plus `stepOffset` steps). */
export function totp(t: TestApp, secret: string, stepOffset = 0): string {
  return speakeasy.totp({ secret, encoding: 'base32', time: t.clock.nowSeconds() + stepOffset * 30 });
}
