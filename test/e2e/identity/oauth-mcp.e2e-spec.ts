import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, extractWWWAuthenticateParams, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { SignedIn } from '../../support/auth';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * The web application at APP_URL (the OAuth issuer) serves the `/.well-known` documents of the API; here a
 * reverse proxy on loopback stands in for it, so the MCP client reaches the issuer exactly as it would in
 * production.
 */
class AppUrlProxy {
  private readonly server: Server;
  target = '';
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      const target = new URL(this.target);
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => {
        res.statusCode = 502;
        res.end();
      });
      req.pipe(upstream);
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * An MCP client's OAuth provider as an application would write it. Its `redirectToAuthorization` is the browser
 * step: the signed-in person opens the authorization URL, sees the consent page and approves; the code then
 * arrives at the redirect URI.
 */
class BrowserClientProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:33418/callback';
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier = '';
  private readonly stateValue = randomBytes(16).toString('hex');
  authorizationUrl?: URL;
  code?: string;

  constructor(
    private readonly person: SignedIn,
    private readonly organizationId: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP test connector',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return this.stateValue;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrl = url;
    const page = await this.person.agent.get(`${url.pathname}${url.search}`).expect(200);
    const field = (name: string): string => new RegExp(`name="${name}" value="([^"]+)"`).exec(page.text)![1];
    const decision = await this.person.agent
      .post('/api/v1/oauth/authorize/decision')
      .type('form')
      .send({
        request_id: field('request_id'),
        csrf_token: field('csrf_token'),
        organization_id: this.organizationId,
        access: 'read',
        decision: 'approve',
      })
      .expect(303);
    const back = new URL(decision.headers.location);
    expect(`${back.origin}${back.pathname}`).toBe(this.redirectUrl);
    expect(back.searchParams.get('state')).toBe(this.stateValue);
    this.code = back.searchParams.get('code')!;
  }
}

describe('An MCP client completes OAuth against this server unchanged (@modelcontextprotocol/sdk)', () => {
  let t: TestApp;
  let appUrl: AppUrlProxy;
  let person: SignedIn;
  let orgId: string;

  beforeAll(async () => {
    appUrl = new AppUrlProxy();
    await appUrl.start();
    t = await createTestApp({ env: { APP_URL: appUrl.url } });
    appUrl.target = t.baseUrl;
    person = await adult(t);
    orgId = await createOrganization(t, person, 'MCP Org');
  });
  afterAll(async () => {
    await t.close();
    await appUrl.stop();
  });

  it('discovery from a 401, dynamic registration, authorization with PKCE, code exchange, API call, refresh', async () => {
    const serverUrl = `${t.baseUrl}/api/v1/auth/credential`;

    // 1. The API refuses the anonymous call and says where its metadata is.
    const refused = await fetch(serverUrl);
    expect(refused.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(refused);
    expect(resourceMetadataUrl?.href).toBe(`${t.baseUrl}/.well-known/oauth-protected-resource`);

    // 2. Discovery (RFC 9728, then RFC 8414 at the issuer), registration (RFC 7591) and the browser step.
    const provider = new BrowserClientProvider(person, orgId);
    expect(await auth(provider, { serverUrl, resourceMetadataUrl })).toBe('REDIRECT');
    const client = provider.clientInformation();
    expect(client?.client_id).toMatch(/^[0-9a-f-]{36}$/);
    const asked = provider.authorizationUrl!;
    expect(`${asked.origin}${asked.pathname}`).toBe(`${t.baseUrl}/api/v1/oauth/authorize`);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(`${t.baseUrl}/api/v1`);
    expect(asked.searchParams.get('scope')).toBe('svc');
    expect(provider.code).toBeDefined();

    // 3. The code exchange.
    expect(await auth(provider, { serverUrl, resourceMetadataUrl, authorizationCode: provider.code })).toBe(
      'AUTHORIZED',
    );
    const first = provider.tokens()!;
    expect(first.access_token).toMatch(/^svc_oat_/);
    expect(first.refresh_token).toMatch(/^svc_ort_/);

    // 4. The token calls the API.
    const call = await fetch(serverUrl, { headers: { Authorization: `Bearer ${first.access_token}` } });
    expect(call.status).toBe(200);
    expect(await call.json()).toMatchObject({
      kind: 'oauth_token',
      organization_id: orgId,
      role: 'owner',
      access: 'read',
    });

    // 5. Refresh (rotation): the client's next auth() refreshes with the stored refresh token.
    expect(await auth(provider, { serverUrl, resourceMetadataUrl })).toBe('AUTHORIZED');
    const second = provider.tokens()!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const again = await fetch(serverUrl, { headers: { Authorization: `Bearer ${second.access_token}` } });
    expect(again.status).toBe(200);

    // The connection shows among the person's integrations.
    const integrations = await person.agent.get('/api/v1/me/integrations').expect(200);
    expect(integrations.body.items).toContainEqual(
      expect.objectContaining({ kind: 'oauth_client', name: 'MCP test connector' }),
    );
  });
});
