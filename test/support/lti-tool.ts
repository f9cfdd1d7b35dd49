import { createServer, type AddressInfo } from 'node:net';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL } from './test-env';

/**
 * The real LTI 1.3 tool of the LTI suite: ltijs (v5) with its PostgreSQL plugin (ltijs-sequelize), on loopback.
 *
 * What ltijs needs to run here:
 * - it requires `mongoose` at import even with the sequelize plugin (it is installed; nothing connects to MongoDB);
 * - its Provider is a process-wide singleton, so one tool per test file;
 * - dev mode (`devMode: true`) and plain-http cookies (`secure: false`, `sameSite: 'Lax'`): the test's browser carries
 *   the tool's cookies itself (a small jar below) over http on 127.0.0.1, and dev mode keeps ltijs from refusing a
 *   launch only because a state cookie of another port was not sent;
 * - `tokenMaxAge` is ltijs's own check of the id_token's `iat` against the real clock (the platform's test clock
 *   follows real time unless a test moves it).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- ltijs ships CommonJS without types
const ltijs = require('ltijs') as { Provider: LtiProvider };
// eslint-disable-next-line @typescript-eslint/no-require-imports -- same
const Sequelize = require('ltijs-sequelize') as new (
  db: string,
  user: string,
  pass: string,
  options: object,
) => unknown;

/** The part of ltijs's Provider the suite uses (it has no type declarations). */
export interface LtiProvider {
  setup(key: string, database: { plugin: unknown }, options: object): LtiProvider;
  deploy(options: { port: number; silent: boolean; serverless?: boolean }): Promise<boolean>;
  close(options?: { silent: boolean }): Promise<boolean>;
  onConnect(cb: (token: LtiToken, req: unknown, res: ExpressRes) => unknown): void;
  onDeepLinking(cb: (token: LtiToken, req: unknown, res: ExpressRes) => unknown): void;
  registerPlatform(platform: object): Promise<unknown>;
  getPlatform(
    url: string,
    clientId: string,
  ): Promise<{ platformAccessToken(scopes: string): Promise<{ access_token: string; token_type: string }> }>;
  deletePlatform(url: string, clientId: string): Promise<unknown>;
  Grade: {
    submitScore(idtoken: LtiToken, lineItemId: string, score: object): Promise<unknown>;
    getLineItems(idtoken: LtiToken, options?: object): Promise<{ lineItems: { id: string }[] }>;
  };
  NamesAndRoles: { getMembers(idtoken: LtiToken, options?: object): Promise<{ members: Record<string, unknown>[] }> };
  DeepLinking: { createDeepLinkingForm(idtoken: LtiToken, items: object[], options?: object): Promise<string> };
  app: { get(path: string, handler: (req: unknown, res: ExpressRes) => unknown): void };
  whitelist(...routes: string[]): void;
}

interface ExpressRes {
  locals: { token: LtiToken };
  status(code: number): ExpressRes;
  json(body: unknown): void;
  send(body: string): void;
}

export type LtiToken = Record<string, unknown> & {
  user: string;
  platformContext: Record<string, unknown>;
};

export interface LtiTool {
  provider: LtiProvider;
  url: string;
  /** The id_tokens (ltijs's token objects) of every accepted launch, oldest first. */
  launches: LtiToken[];
  /** Deep-linking launches accepted, oldest first. */
  deepLinks: LtiToken[];
  /** Items the next deep-linking launch answers with. */
  deepLinkItems: object[];
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts ltijs on a free loopback port with its own PostgreSQL database `<dbName>_ltijs` (dropped on close). */
export async function startLtiTool(dbName: string): Promise<LtiTool> {
  const toolDb = `${dbName}_ltijs`;
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${toolDb}"`);
  await admin.query(`CREATE DATABASE "${toolDb}"`);
  await admin.end();
  const adminUrl = new URL(ADMIN_DATABASE_URL);
  const plugin = new Sequelize(
    toolDb,
    decodeURIComponent(adminUrl.username) || 'postgres',
    decodeURIComponent(adminUrl.password),
    {
      host: adminUrl.hostname,
      port: Number(adminUrl.port || 5432),
      dialect: 'postgres',
      logging: false,
    },
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const provider = ltijs.Provider;
  provider.setup(
    'ltijs-test-encryption-key',
    { plugin },
    {
      appRoute: '/',
      loginRoute: '/login',
      keysetRoute: '/keys',
      dynRegRoute: '/register',
      devMode: true,
      tokenMaxAge: 60,
      cookies: { secure: false, sameSite: 'Lax' },
      dynReg: {
        url,
        name: 'ltijs test tool',
        description: 'The real peer of the LTI suite',
        redirectUris: [`${url}/`],
        autoActivate: true,
      },
    },
  );
  const tool: LtiTool = {
    provider,
    url,
    launches: [],
    deepLinks: [],
    deepLinkItems: [],
    close: async () => {
      await provider.close({ silent: true });
      const a = new Client({ connectionString: ADMIN_DATABASE_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${toolDb}" WITH (FORCE)`);
      await a.end();
    },
  };
  provider.onConnect((token, _req, res) => {
    tool.launches.push(token);
    res.status(200).json({ launched: true, sub: token.user, context: token.platformContext });
  });
  provider.onDeepLinking(async (token, _req, res) => {
    tool.deepLinks.push(token);
    res.send(await provider.DeepLinking.createDeepLinkingForm(token, tool.deepLinkItems, { message: 'Added' }));
  });
  // ltijs-sequelize runs its umzug migrations at deploy and logs each one with console.info.
  const info = console.info;
  console.info = () => undefined;
  try {
    await provider.deploy({ port, silent: true });
  } finally {
    console.info = info;
  }
  return tool;
}

/** A minimal cookie jar for one origin (the tool's), as a browser would keep it. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** The hidden fields and action of an auto-submitting form page. */
export function parseFormPost(html: string): { action: string; fields: Record<string, string> } {
  const unescape = (s: string): string =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const action = /<form[^>]*action="([^"]*)"/i.exec(html)?.[1];
  if (!action) throw new Error(`no form in: ${html.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input[^>]*name="([^"]*)"[^>]*value="([^"]*)"/gi))
    fields[unescape(m[1])] = unescape(m[2]);
  return { action: unescape(action), fields };
}
