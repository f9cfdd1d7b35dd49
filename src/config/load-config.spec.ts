import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './load-config';

const KEY = Buffer.alloc(32, 1).toString('base64');
const PROD = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://u@db/app',
  REDIS_URL: 'redis://cache:6379',
  SMTP_URL: 'smtp://mail:25',
  MAIL_FROM: 'Platform <no-reply@example.org>',
  BASE_URL: 'https://api.example.org',
  WEB_URL: 'https://www.example.org',
  APP_URL: 'https://app.example.org',
  AUTH_SECRET: 'x'.repeat(40),
  DATA_ENCRYPTION_KEY: KEY,
};

describe('loadConfig', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'cfg-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('applies the development defaults with nothing set', () => {
    const c = loadConfig({ DATA_DIR: dataDir });
    expect(c.port).toBe(8000);
    expect(c.nodeEnv).toBe('development');
    expect(c.database.url).toBeNull();
    expect(c.redis.url).toBeNull();
    expect(c.mail.smtpUrl).toBeNull();
    expect(c.baseUrl).toBe('http://localhost:8000');
    expect(c.cookieSecure).toBe(false);
    expect(c.trustProxy).toBe(false);
    expect(c.corsOrigins).toEqual(['http://localhost:3000']);
    expect(c.dataEncryptionKey).toHaveLength(32);
    expect(c.authSecret.length).toBeGreaterThanOrEqual(32);
  });

  it('the tenancy guard refuses outside production, logs in production, and takes only its three modes', () => {
    expect(loadConfig({ DATA_DIR: dataDir }).database.tenancyGuard).toBe('refuse');
    expect(loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test' }).database.tenancyGuard).toBe('refuse');
    expect(loadConfig({ ...PROD, DATA_DIR: dataDir }).database.tenancyGuard).toBe('log');
    expect(loadConfig({ ...PROD, DATA_DIR: dataDir, DATABASE_TENANCY_GUARD: 'refuse' }).database.tenancyGuard).toBe(
      'refuse',
    );
    expect(() => loadConfig({ DATA_DIR: dataDir, DATABASE_TENANCY_GUARD: 'strict' })).toThrow(ConfigError);
  });

  it('several machines (5.2): direct URL, named statements, drain', () => {
    const pooled = loadConfig({ ...PROD, DATA_DIR: dataDir });
    expect(pooled.database).toMatchObject({ directUrl: 'postgres://u@db/app', namedStatements: true });
    expect(pooled.shutdownDrainMs).toBe(5000);
    const c = loadConfig({
      ...PROD,
      DATA_DIR: dataDir,
      DATABASE_URL: 'postgres://u@pgbouncer:6432/app',
      DATABASE_DIRECT_URL: 'postgres://u@db:5432/app',
      DATABASE_NAMED_STATEMENTS: 'false',
      SHUTDOWN_DRAIN_MS: '0',
    });
    expect(c.database).toMatchObject({
      url: 'postgres://u@pgbouncer:6432/app',
      directUrl: 'postgres://u@db:5432/app',
      namedStatements: false,
    });
    expect(c.shutdownDrainMs).toBe(0);
    // The embedded database never names statements (one session serves every connection).
    expect(loadConfig({ DATA_DIR: dataDir }).database).toMatchObject({ directUrl: null, namedStatements: false });
    expect(() => loadConfig({ DATA_DIR: dataDir, DATABASE_DIRECT_URL: 'mysql://x' })).toThrow(/DATABASE_DIRECT_URL/);
    expect(() => loadConfig({ DATA_DIR: dataDir, SHUTDOWN_DRAIN_MS: '-1' })).toThrow(/SHUTDOWN_DRAIN_MS/);
  });

  it('reads JOBS_LOCK_MS between one second and ten minutes', () => {
    expect(loadConfig({ DATA_DIR: dataDir }).jobsLockMs).toBe(30_000);
    expect(loadConfig({ DATA_DIR: dataDir, JOBS_LOCK_MS: '1000' }).jobsLockMs).toBe(1000);
    expect(loadConfig({ DATA_DIR: dataDir, JOBS_LOCK_MS: '600000' }).jobsLockMs).toBe(600_000);
    expect(() => loadConfig({ DATA_DIR: dataDir, JOBS_LOCK_MS: '999' })).toThrow(/JOBS_LOCK_MS/);
    expect(() => loadConfig({ DATA_DIR: dataDir, JOBS_LOCK_MS: '600001' })).toThrow(/JOBS_LOCK_MS/);
    expect(() => loadConfig({ DATA_DIR: dataDir, JOBS_LOCK_MS: 'soon' })).toThrow(/JOBS_LOCK_MS/);
  });

  it('keeps generated development secrets across restarts', () => {
    const a = loadConfig({ DATA_DIR: dataDir });
    const b = loadConfig({ DATA_DIR: dataDir });
    expect(b.authSecret).toBe(a.authSecret);
    expect(b.dataEncryptionKey.equals(a.dataEncryptionKey)).toBe(true);
  });

  it('accepts a complete production configuration', () => {
    const c = loadConfig({ ...PROD, PLATFORM_ADMIN_EMAILS: 'Root@Example.org, ops@example.org', TRUST_PROXY: '1' });
    expect(c.isProduction).toBe(true);
    expect(c.cookieSecure).toBe(true);
    expect(c.platformAdminEmails).toEqual(['root@example.org', 'ops@example.org']);
    expect(c.trustProxy).toBe(1);
  });

  it.each(Object.keys(PROD).filter((k) => k !== 'NODE_ENV'))('refuses production without %s', (name) => {
    const env: Record<string, string> = { ...PROD };
    delete env[name];
    expect(() => loadConfig(env)).toThrow(new ConfigError(name, 'is required in production'));
  });

  it.each([
    ['PORT', 'http'],
    ['PORT', '70000'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'localhost:6379'],
    ['SMTP_URL', 'mail.example.org'],
    ['BASE_URL', 'not a url'],
    ['AUTH_SECRET', 'short'],
    ['DATA_ENCRYPTION_KEY', Buffer.alloc(16).toString('base64')],
    ['COOKIE_SECURE', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['PLATFORM_ADMIN_EMAILS', 'root@example.org, not-an-email'],
    ['CORS_ORIGINS', 'https://ok.example, nope'],
  ])('stops with one line naming %s when it is %p', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ DATA_DIR: dataDir, [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(name);
    expect((error as ConfigError).message).toMatch(new RegExp(`^Configuration error: ${name} `));
    expect((error as ConfigError).message).not.toContain('\n');
  });

  it('refuses COOKIE_SECURE=false in production on a public address', () => {
    expect(() => loadConfig({ ...PROD, COOKIE_SECURE: 'false' })).toThrow(/COOKIE_SECURE/);
  });

  it('ignores unrelated environment variables', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir, PATH: '/bin', HOME: '/root' })).not.toThrow();
  });
});

describe('loadConfig: providers, SSO and storage', () => {
  it('offers a provider only when both its client id and secret are set, with the default or overridden issuer', () => {
    const c = loadConfig({
      DATA_DIR: '/tmp/cfg-providers',
      GOOGLE_CLIENT_ID: 'g',
      GOOGLE_CLIENT_SECRET: 's',
      MICROSOFT_CLIENT_ID: 'm',
    });
    expect(c.providers.google).toEqual({ clientId: 'g', clientSecret: 's', issuer: 'https://accounts.google.com' });
    expect(c.providers.microsoft).toBeNull();
    const m = loadConfig({
      DATA_DIR: '/tmp/cfg-providers',
      MICROSOFT_CLIENT_ID: 'm',
      MICROSOFT_CLIENT_SECRET: 'x',
      MICROSOFT_TENANT: 'contoso.onmicrosoft.com',
      GOOGLE_ISSUER: 'http://127.0.0.1:9999/',
    });
    expect(m.providers.microsoft).toEqual({
      clientId: 'm',
      clientSecret: 'x',
      tenant: 'contoso.onmicrosoft.com',
      issuer: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0',
    });
  });

  it('reads SCIM_ENABLED and SCIM_TOKEN_PER_MINUTE (defaults true and 1 200)', () => {
    expect(loadConfig({ DATA_DIR: '/tmp/cfg-scim' }).scim).toEqual({ enabled: true, tokenPerMinute: 1200 });
    expect(loadConfig({ DATA_DIR: '/tmp/cfg-scim', SCIM_ENABLED: 'false', SCIM_TOKEN_PER_MINUTE: '0' }).scim).toEqual({
      enabled: false,
      tokenPerMinute: 0,
    });
    expect(() => loadConfig({ DATA_DIR: '/tmp/cfg-scim', SCIM_TOKEN_PER_MINUTE: '-1' })).toThrow(
      /SCIM_TOKEN_PER_MINUTE/,
    );
  });

  it('reads SSO_ENABLED, DNS_RESOLVER and STORAGE_DIR', () => {
    const c = loadConfig({ DATA_DIR: '/tmp/cfg-sso', SSO_ENABLED: 'false', DNS_RESOLVER: '127.0.0.1:5353' });
    expect(c.sso).toEqual({ enabled: false, dnsResolver: '127.0.0.1:5353' });
    expect(c.storageDir).toBe('/tmp/cfg-sso/storage');
    expect(() => loadConfig({ DATA_DIR: '/tmp/cfg-sso', DNS_RESOLVER: 'nohost' })).toThrow(/DNS_RESOLVER/);
  });

  it('STORAGE_URL: file:// (default DATA_DIR/storage, STORAGE_DIR a shorthand) and s3:// with its parameters', () => {
    const base = { DATA_DIR: '/tmp/cfg-storage' };
    expect(loadConfig(base).storage).toEqual({ driver: 'file', dir: '/tmp/cfg-storage/storage' });
    expect(loadConfig({ ...base, STORAGE_DIR: '/srv/files' }).storage).toEqual({ driver: 'file', dir: '/srv/files' });
    const file = loadConfig({ ...base, STORAGE_DIR: '/ignored', STORAGE_URL: 'file:///srv/lp%20files' });
    expect(file.storage).toEqual({ driver: 'file', dir: '/srv/lp files' });
    expect(file.storageDir).toBe('/srv/lp files');
    const s3 = loadConfig({
      ...base,
      STORAGE_URL:
        's3://lp-files/prod/eu?region=eu-west-1&endpoint=http%3A%2F%2F127.0.0.1%3A9000%2F&force_path_style=true',
      S3_ACCESS_KEY_ID: 'AKIA',
      S3_SECRET_ACCESS_KEY: 'secret',
    });
    expect(s3.storage).toEqual({
      driver: 's3',
      bucket: 'lp-files',
      prefix: 'prod/eu',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIA', secretAccessKey: 'secret' },
    });
    expect(loadConfig({ ...base, STORAGE_URL: 's3://lp-files?region=us-east-1' }).storage).toEqual({
      driver: 's3',
      bucket: 'lp-files',
      prefix: '',
      region: 'us-east-1',
      endpoint: null,
      forcePathStyle: false,
      credentials: null,
    });
    for (const [url, message] of [
      ['http://x/y', /STORAGE_URL must be a file:\/\/ or s3:\/\/ URL/],
      ['file://relative/path', /STORAGE_URL must be file:\/\/\/absolute\/path/],
      ['s3://lp-files', /needs \?region/],
      ['s3://lp-files?region=x&acl=public', /unknown parameter "acl"/],
      ['s3://Bad_Bucket?region=x', /invalid bucket/],
      ['s3://key:secret@lp-files?region=x', /credentials go in S3_/],
      ['s3://lp-files/../x?region=x', /invalid prefix/],
      ['s3://lp-files?region=x&endpoint=ftp://h', /endpoint must be an http/],
      ['s3://lp-files?region=x&force_path_style=yes', /force_path_style must be true or false/],
    ] as const) {
      expect(() => loadConfig({ ...base, STORAGE_URL: url })).toThrow(message);
    }
    expect(() => loadConfig({ ...base, STORAGE_URL: 's3://lp-files?region=x', S3_ACCESS_KEY_ID: 'a' })).toThrow(
      /S3_SECRET_ACCESS_KEY/,
    );
  });
});
