import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

/** Claims of an account at a test provider. */
export interface TestAccount {
  email: string;
  email_verified?: boolean;
  hd?: string;
  tid?: string;
  name?: string;
  [claim: string]: unknown;
}

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function readBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

async function signingKey(kid: string): Promise<{ privateJwk: JWK; publicJwk: JWK; privateKey: CryptoKey }> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateJwk, publicJwk, privateKey };
}

/** oidc-provider's storage for a test: a Map per model (its built-in one warns on every start). */
class MemoryAdapter {
  private static readonly store = new Map<string, { payload: Record<string, unknown>; expires: number }>();

  constructor(private readonly model: string) {}

  private key(id: string): string {
    return `${this.model}:${id}`;
  }

  async upsert(id: string, payload: Record<string, unknown>, expiresIn: number): Promise<void> {
    MemoryAdapter.store.set(this.key(id), { payload, expires: Date.now() + expiresIn * 1000 });
  }

  async find(id: string): Promise<Record<string, unknown> | undefined> {
    const entry = MemoryAdapter.store.get(this.key(id));
    return entry && entry.expires > Date.now() ? entry.payload : undefined;
  }

  async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
    for (const [key, entry] of MemoryAdapter.store) {
      if (key.startsWith(`${this.model}:`) && entry.payload.uid === uid) return entry.payload;
    }
    return undefined;
  }

  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(id: string): Promise<void> {
    const entry = MemoryAdapter.store.get(this.key(id));
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    MemoryAdapter.store.delete(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [key, entry] of MemoryAdapter.store)
      if (entry.payload.grantId === grantId) MemoryAdapter.store.delete(key);
  }
}

/** A tiny cookie jar for driving a provider's pages the way a browser would. */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const expired = attrs.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1).trim());
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * A real OpenID Provider (panva's oidc-provider, certified) on 127.0.0.1, standing in for Google, Microsoft or an
 * institution. The HTTP server listens first so its issuer can be configured in the service; `configure` then
 * builds the provider with the clients (whose redirect URIs need the service's address) and the accounts.
 * Login and consent are driven over HTTP by `signIn`, as a browser would.
 */
export class TestOpenIdProvider {
  readonly accounts = new Map<string, TestAccount>();
  private provider?: Provider;
  private server?: Server;
  issuer = '';

  static async start(): Promise<TestOpenIdProvider> {
    const op = new TestOpenIdProvider();
    op.server = createServer((req, res) => void op.handle(req, res));
    op.issuer = `http://127.0.0.1:${await listen(op.server)}`;
    return op;
  }

  async configure(clients: TestClient[]): Promise<void> {
    const { privateJwk } = await signingKey('test-op-key');
    const configuration: Configuration = {
      adapter: MemoryAdapter,
      clients: clients.map((c) => ({
        ...c,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      })),
      jwks: { keys: [privateJwk] },
      cookies: { keys: [randomBytes(32).toString('hex')] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'hd', 'tid', 'locale'] },
      // Put the scope's claims in the ID token (the service reads the ID token, not userinfo).
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      pkce: { required: () => true },
      ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
      findAccount: (_ctx, id) => {
        const account = this.accounts.get(id);
        if (!account) return undefined;
        return { accountId: id, claims: () => ({ sub: id, ...account }) };
      },
    };
    this.provider = new Provider(this.issuer, configuration);
  }

  /**
   * Runs the browser's part: from the service's redirect to the provider's authorization URL, signs in as
   * `accountId` (or denies), consents, and returns the URL the provider sends the browser back to.
   */
  async signIn(authorizeUrl: string, accountId: string, options: { deny?: boolean } = {}): Promise<string> {
    const jar = new CookieJar();
    let url = authorizeUrl;
    let body: string | undefined;
    for (let step = 0; step < 12; step++) {
      const res = await fetch(url, {
        method: body === undefined ? 'GET' : 'POST',
        body,
        headers: {
          cookie: jar.header(),
          ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        },
        redirect: 'manual',
      });
      jar.store(res);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) {
        throw new Error(`The provider answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
      }
      const next = new URL(location, url);
      if (next.origin !== new URL(this.issuer).origin) return next.href;
      url = next.href;
      body = next.pathname.startsWith('/interaction/')
        ? new URLSearchParams(options.deny ? { deny: '1' } : { account: accountId }).toString()
        : undefined;
    }
    throw new Error('Too many redirects at the provider');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const provider = this.provider;
    if (!provider) {
      res.statusCode = 503;
      res.end();
      return;
    }
    try {
      if (req.method === 'POST' && req.url?.startsWith('/interaction/')) {
        await this.interact(provider, req, res);
        return;
      }
      await provider.callback()(req, res);
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  }

  /** Login with the account named in the form; consent to everything asked; or deny. */
  private async interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readBody(req);
    const details = await provider.interactionDetails(req, res);
    if (form.get('deny')) {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'Denied' });
      return;
    }
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: form.get('account') ?? '' } });
      return;
    }
    const grant = new provider.Grant({
      accountId: details.session?.accountId,
      clientId: details.params.client_id as string,
    });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** What the crafted peer does wrong in its next ID token. */
export interface Tamper {
  nonce?: string;
  aud?: string;
  iss?: string;
  /** Issue a token that expired this many seconds ago. */
  expired?: boolean;
  /** Sign with a key the published JWKS does not hold (same `kid`). */
  rogueKey?: boolean;
  /** Answer the token request with this OAuth error instead. */
  tokenError?: string;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  nonce: string | null;
  challenge: string | null;
  claims: Record<string, unknown>;
  tamper: Tamper;
  used: boolean;
}

/**
 * A hand-rolled OpenID provider (discovery, JWKS, authorization and token endpoints) on loopback that signs
 * whatever ID token a test asks for with jose: wrong nonce, audience or issuer, expired, or signed by another key.
 * A compliant provider never produces these, yet the service must refuse each. It still checks the client
 * secret, the redirect URI and PKCE like a real one.
 */
export class CraftedOidcPeer {
  issuer = '';
  clientId = 'crafted-client';
  clientSecret = 'crafted-secret';
  /** Claims of the next sign-in (sub, email, email_verified, hd, tid...). */
  claims: Record<string, unknown> = {};
  tamper: Tamper = {};
  /** Endpoints the discovery document names instead of the peer's own (an issuer pointing inside the network). */
  endpoints: Partial<Record<'token_endpoint' | 'jwks_uri', string>> = {};
  /** PKCE verifiers received at the token endpoint (to assert the service sent one). */
  readonly verifiers: string[] = [];
  private readonly codes = new Map<string, IssuedCode>();
  private server?: Server;
  private good?: Awaited<ReturnType<typeof signingKey>>;
  private rogue?: Awaited<ReturnType<typeof signingKey>>;
  private path = '';

  /** `path` puts the issuer below the root, e.g. `/<tenant-guid>/v2.0` as Microsoft does. */
  static async start(path = ''): Promise<CraftedOidcPeer> {
    const peer = new CraftedOidcPeer();
    peer.path = path;
    peer.good = await signingKey('crafted-key');
    peer.rogue = await signingKey('crafted-key');
    peer.server = createServer((req, res) => void peer.handle(req, res));
    peer.issuer = `http://127.0.0.1:${await listen(peer.server)}${path}`;
    return peer;
  }

  /** Keeps the process free to exit while the peer is up (a shared peer of a table-driven suite). */
  unref(): void {
    this.server?.unref();
  }

  /** The browser's part: the authorization URL answers at once with the redirect back to the service. */
  async signIn(authorizeUrl: string): Promise<string> {
    const res = await fetch(authorizeUrl, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`The peer answered ${res.status}: ${await res.text()}`);
    return location;
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = url.pathname.startsWith(this.path) ? url.pathname.slice(this.path.length) : url.pathname;
    if (req.method === 'GET' && route === '/.well-known/openid-configuration') {
      this.json(res, 200, {
        issuer: this.issuer,
        authorization_endpoint: `${this.issuer}/authorize`,
        token_endpoint: `${this.issuer}/token`,
        jwks_uri: `${this.issuer}/jwks`,
        ...this.endpoints,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
      });
      return;
    }
    if (req.method === 'GET' && route === '/jwks') {
      this.json(res, 200, { keys: [this.good!.publicJwk] });
      return;
    }
    if (req.method === 'GET' && route === '/authorize') {
      const q = url.searchParams;
      const redirectUri = q.get('redirect_uri');
      if (q.get('client_id') !== this.clientId || !redirectUri || q.get('response_type') !== 'code') {
        this.json(res, 400, { error: 'invalid_request' });
        return;
      }
      const code = randomBytes(16).toString('hex');
      this.codes.set(code, {
        clientId: this.clientId,
        redirectUri,
        nonce: q.get('nonce'),
        challenge: q.get('code_challenge_method') === 'S256' ? q.get('code_challenge') : null,
        claims: { ...this.claims },
        tamper: { ...this.tamper },
        used: false,
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      if (q.get('state') !== null) back.searchParams.set('state', q.get('state')!);
      res.statusCode = 302;
      res.setHeader('location', back.href);
      res.end();
      return;
    }
    if (req.method === 'POST' && route === '/token') {
      await this.token(await readBody(req), res);
      return;
    }
    this.json(res, 404, { error: 'not_found' });
  }

  private async token(form: URLSearchParams, res: ServerResponse): Promise<void> {
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) {
      this.json(res, 401, { error: 'invalid_client' });
      return;
    }
    const issued = this.codes.get(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    this.verifiers.push(verifier);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (
      form.get('grant_type') !== 'authorization_code' ||
      !issued ||
      issued.used ||
      issued.redirectUri !== form.get('redirect_uri') ||
      issued.challenge === null ||
      issued.challenge !== challenge
    ) {
      this.json(res, 400, { error: 'invalid_grant' });
      return;
    }
    issued.used = true;
    if (issued.tamper.tokenError) {
      this.json(res, 400, { error: issued.tamper.tokenError });
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const { sub, ...claims } = issued.claims;
    const key = issued.tamper.rogueKey ? this.rogue! : this.good!;
    const idToken = await new SignJWT({ ...claims, nonce: issued.tamper.nonce ?? issued.nonce ?? undefined })
      .setProtectedHeader({ alg: 'RS256', kid: key.publicJwk.kid })
      .setIssuer(issued.tamper.iss ?? this.issuer)
      .setAudience(issued.tamper.aud ?? this.clientId)
      .setSubject(typeof sub === 'string' ? sub : 'crafted-subject')
      .setIssuedAt(issued.tamper.expired ? now - 7200 : now)
      .setExpirationTime(issued.tamper.expired ? now - 3600 : now + 600)
      .sign(key.privateKey);
    this.json(res, 200, {
      access_token: randomBytes(16).toString('hex'),
      token_type: 'Bearer',
      expires_in: 600,
      id_token: idToken,
    });
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
