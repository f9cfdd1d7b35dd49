import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { type AppConfig, EnvSettings, type NodeEnv, type StorageSettings } from './app-config';

/** Thrown when a setting is missing or invalid; its message is the one line printed at start. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Configuration error: ${variable} ${detail}`);
    this.name = 'ConfigError';
  }
}

function firstMessage(error: ValidationError): string {
  const messages = Object.values(error.constraints ?? {});
  const text = messages[0] ?? 'is invalid';
  // class-validator prefixes messages with the property name; keep only the rule.
  return text.startsWith(`${error.property} `) ? text.slice(error.property.length + 1) : text;
}

function trustProxyValue(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/**
 * Secrets a development or test machine may generate once and keep under DATA_DIR, so sessions and encrypted
 * data survive restarts. Production never reaches this: missing secrets stop the start there.
 */
function localSecrets(dataDir: string): { authSecret: string; dataEncryptionKey: string } {
  const file = join(dataDir, 'local-secrets.json');
  if (existsSync(file)) {
    return JSON.parse(readFileSync(file, 'utf8')) as { authSecret: string; dataEncryptionKey: string };
  }
  const secrets = {
    authSecret: randomBytes(48).toString('base64url'),
    dataEncryptionKey: randomBytes(32).toString('base64'),
  };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}

const PRODUCTION_REQUIRED: readonly (keyof EnvSettings)[] = [
  'DATABASE_URL',
  'REDIS_URL',
  'SMTP_URL',
  'MAIL_FROM',
  'BASE_URL',
  'WEB_URL',
  'APP_URL',
  'AUTH_SECRET',
  'DATA_ENCRYPTION_KEY',
];

/** Reads, validates and resolves the configuration once. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  // whitelist drops every variable EnvSettings does not declare (the rest of the process environment).
  const settings = plainToInstance(EnvSettings, { ...env });
  const errors = validateSync(settings, { whitelist: true, forbidUnknownValues: false });
  if (errors.length > 0) {
    const first = errors[0];
    throw new ConfigError(first.property, firstMessage(first));
  }

  const nodeEnv: NodeEnv = settings.NODE_ENV ?? 'development';
  const isProduction = nodeEnv === 'production';
  if (isProduction) {
    for (const key of PRODUCTION_REQUIRED) {
      if (settings[key] === undefined) throw new ConfigError(key, 'is required in production');
    }
  }

  const port = settings.PORT ?? 8000;
  const dataDir = resolve(settings.DATA_DIR ?? '.data');
  const secrets =
    settings.AUTH_SECRET && settings.DATA_ENCRYPTION_KEY
      ? { authSecret: settings.AUTH_SECRET, dataEncryptionKey: settings.DATA_ENCRYPTION_KEY }
      : localSecrets(dataDir);
  const baseUrl = stripSlash(settings.BASE_URL ?? `http://localhost:${port}`);
  const webUrl = stripSlash(settings.WEB_URL ?? 'http://localhost:3000');
  const appUrl = stripSlash(settings.APP_URL ?? webUrl);

  const storage = storageSettings(settings, dataDir);

  if (isProduction && settings.COOKIE_SECURE === false && !baseUrl.startsWith('http://localhost')) {
    throw new ConfigError('COOKIE_SECURE', 'cannot be false in production');
  }

  return Object.freeze({
    nodeEnv,
    isProduction,
    port,
    database: {
      url: settings.DATABASE_URL ?? null,
      directUrl: settings.DATABASE_DIRECT_URL ?? settings.DATABASE_URL ?? null,
      poolSize: settings.DATABASE_POOL_SIZE ?? 10,
      namedStatements: settings.DATABASE_URL !== undefined && (settings.DATABASE_NAMED_STATEMENTS ?? true),
      tenancyGuard: settings.DATABASE_TENANCY_GUARD ?? (isProduction ? 'log' : 'refuse'),
    },
    shutdownDrainMs: settings.SHUTDOWN_DRAIN_MS ?? 5000,
    redis: { url: settings.REDIS_URL ?? null, keyPrefix: settings.REDIS_KEY_PREFIX ?? 'lp' },
    mail: {
      smtpUrl: settings.SMTP_URL ?? null,
      from: settings.MAIL_FROM ?? 'Learning Platform <no-reply@localhost>',
    },
    baseUrl,
    webUrl,
    appUrl,
    platformAdminEmails: (settings.PLATFORM_ADMIN_EMAILS ?? []).map((e) => e.toLowerCase()),
    cookieSecure: settings.COOKIE_SECURE ?? isProduction,
    trustProxy: trustProxyValue(settings.TRUST_PROXY),
    authSecret: secrets.authSecret,
    dataEncryptionKey: Buffer.from(secrets.dataEncryptionKey, 'base64'),
    logLevel: settings.LOG_LEVEL ?? (nodeEnv === 'test' ? 'silent' : 'info'),
    corsOrigins: (settings.CORS_ORIGINS ?? [webUrl]).map(stripSlash),
    dataDir,
    processJobs: settings.PROCESS_JOBS ?? true,
    jobsLockMs: settings.JOBS_LOCK_MS ?? 30_000,
    benchRoutes: settings.BENCH_ROUTES ?? false,
    migrateOnStart: settings.MIGRATE_ON_START ?? true,
    storageDir: storage.driver === 'file' ? storage.dir : resolve(settings.STORAGE_DIR ?? join(dataDir, 'storage')),
    storage,
    providers: {
      google:
        settings.GOOGLE_CLIENT_ID && settings.GOOGLE_CLIENT_SECRET
          ? {
              clientId: settings.GOOGLE_CLIENT_ID,
              clientSecret: settings.GOOGLE_CLIENT_SECRET,
              issuer: stripSlash(settings.GOOGLE_ISSUER ?? 'https://accounts.google.com'),
            }
          : null,
      microsoft:
        settings.MICROSOFT_CLIENT_ID && settings.MICROSOFT_CLIENT_SECRET
          ? {
              clientId: settings.MICROSOFT_CLIENT_ID,
              clientSecret: settings.MICROSOFT_CLIENT_SECRET,
              tenant: settings.MICROSOFT_TENANT ?? 'common',
              issuer: stripSlash(
                settings.MICROSOFT_ISSUER ??
                  `https://login.microsoftonline.com/${settings.MICROSOFT_TENANT ?? 'common'}/v2.0`,
              ),
            }
          : null,
    },
    sso: { enabled: settings.SSO_ENABLED ?? true, dnsResolver: settings.DNS_RESOLVER ?? null },
    passkeys: {
      enabled: settings.PASSKEYS_ENABLED ?? true,
      rpId: settings.WEBAUTHN_RP_ID ?? new URL(webUrl).hostname,
      rpName: settings.WEBAUTHN_RP_NAME ?? 'Learning Platform',
      origins: [
        ...new Set([new URL(webUrl).origin, ...(settings.WEBAUTHN_ORIGINS ?? []).map((o) => new URL(o).origin)]),
      ],
    },
    scim: { enabled: settings.SCIM_ENABLED ?? true, tokenPerMinute: settings.SCIM_TOKEN_PER_MINUTE ?? 1200 },
    lti: { enabled: settings.LTI_ENABLED ?? true, servicePerMinute: settings.LTI_SERVICE_PER_MINUTE ?? 6000 },
    push: { vapid: vapidSettings(settings), fcm: fcmSettings(settings) },
    emailWebhookSecrets: settings.EMAIL_WEBHOOK_SECRET ?? [],
    ai: {
      remote: aiRemote(settings, isProduction),
      timeoutMs: settings.AI_TIMEOUT_MS ?? 60_000,
      maxOutputTokens: settings.AI_MAX_OUTPUT_TOKENS ?? 800,
    },
    telemetrySampleRate: settings.TELEMETRY_SAMPLE_RATE ?? 1,
    reportMaxRows: settings.REPORT_MAX_ROWS ?? 200_000,
    duels: {
      roundMs: settings.DUEL_ROUND_MS ?? 15_000,
      countdownMs: settings.DUEL_COUNTDOWN_MS ?? 3_000,
      reconnectWindowMs: settings.DUEL_RECONNECT_WINDOW_MS ?? 30_000,
    },
    contactInbox: settings.CONTACT_INBOX?.toLowerCase() ?? null,
    supportInbox: settings.SUPPORT_INBOX?.toLowerCase() ?? null,
    openBadges: openBadgesSettings(settings, isProduction, dataDir),
    metrics: {
      token: settings.METRICS_TOKEN ?? null,
      port: settings.METRICS_PORT ?? null,
      host: settings.METRICS_HOST ?? '127.0.0.1',
    },
    budgets: {
      tokenPerMinute: settings.API_BUDGET_TOKEN_PER_MINUTE ?? 1_200,
      sessionPerMinute: settings.API_BUDGET_SESSION_PER_MINUTE ?? 600,
      anonymousPerMinute: settings.API_BUDGET_ANONYMOUS_PER_MINUTE ?? 300,
    },
  });
}

/** The address inside MAIL_FROM (`Name <a@b>` or `a@b`). */
function mailFromAddress(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from.trim();
}

function vapidSettings(settings: EnvSettings): AppConfig['push']['vapid'] {
  const { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey } = settings;
  if (!publicKey && !privateKey) return null;
  if (!publicKey) throw new ConfigError('VAPID_PUBLIC_KEY', 'is required with VAPID_PRIVATE_KEY');
  if (!privateKey) throw new ConfigError('VAPID_PRIVATE_KEY', 'is required with VAPID_PUBLIC_KEY');
  const from = mailFromAddress(settings.MAIL_FROM ?? 'no-reply@localhost');
  return { publicKey, privateKey, subject: settings.VAPID_SUBJECT ?? `mailto:${from}` };
}

function fcmSettings(settings: EnvSettings): AppConfig['push']['fcm'] {
  if (!settings.FCM_CREDENTIALS) return null;
  let account: { project_id?: unknown; client_email?: unknown; private_key?: unknown; token_uri?: unknown };
  try {
    account = JSON.parse(Buffer.from(settings.FCM_CREDENTIALS, 'base64').toString('utf8')) as typeof account;
  } catch {
    throw new ConfigError('FCM_CREDENTIALS', 'must be the base64 of a service-account JSON');
  }
  const { project_id, client_email, private_key, token_uri } = account;
  if (
    typeof project_id !== 'string' ||
    typeof client_email !== 'string' ||
    typeof private_key !== 'string' ||
    typeof token_uri !== 'string'
  ) {
    throw new ConfigError('FCM_CREDENTIALS', 'must hold project_id, client_email, private_key and token_uri');
  }
  return {
    projectId: project_id,
    clientEmail: client_email,
    privateKey: private_key,
    tokenUri: token_uri,
    baseUrl: stripSlash(settings.FCM_BASE_URL ?? 'https://fcm.googleapis.com'),
  };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

function aiRemote(settings: EnvSettings, isProduction: boolean): AppConfig['ai']['remote'] {
  if (!settings.AI_BASE_URL) return null;
  if (!settings.AI_MODEL) throw new ConfigError('AI_MODEL', 'is required with AI_BASE_URL');
  const url = new URL(settings.AI_BASE_URL);
  const loopbackHttp = url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && (!loopbackHttp || isProduction)) {
    throw new ConfigError('AI_BASE_URL', 'must be https (plain http only on loopback, never in production)');
  }
  return { baseUrl: stripSlash(settings.AI_BASE_URL), apiKey: settings.AI_API_KEY ?? null, model: settings.AI_MODEL };
}

/** Outside production the signing key is generated once into DATA_DIR, like the other local secrets. */
const S3_QUERY = new Set(['region', 'endpoint', 'force_path_style']);
/** Bucket names as S3 allows them (3 to 63 lowercase letters, digits, dots and hyphens). */
const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** STORAGE_URL (`file://` or `s3://`); without it STORAGE_DIR, else `DATA_DIR/storage`. */
function storageSettings(settings: EnvSettings, dataDir: string): StorageSettings {
  const raw = settings.STORAGE_URL;
  if (!raw) return { driver: 'file', dir: resolve(settings.STORAGE_DIR ?? join(dataDir, 'storage')) };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('STORAGE_URL', 'is not a URL');
  }
  if (url.protocol === 'file:') {
    if (url.search || url.hash || (url.host && url.host !== 'localhost'))
      throw new ConfigError('STORAGE_URL', 'must be file:///absolute/path');
    const dir = fileURLToPath(url);
    if (!isAbsolute(dir)) throw new ConfigError('STORAGE_URL', 'must be file:///absolute/path');
    return { driver: 'file', dir: resolve(dir) };
  }
  if (url.username || url.password || url.port || url.hash)
    throw new ConfigError('STORAGE_URL', 'must be s3://<bucket>[/<prefix>]?region=<r> (credentials go in S3_*)');
  if (!S3_BUCKET.test(url.hostname)) throw new ConfigError('STORAGE_URL', 'names an invalid bucket');
  for (const name of url.searchParams.keys()) {
    if (!S3_QUERY.has(name)) throw new ConfigError('STORAGE_URL', `has an unknown parameter "${name}"`);
  }
  const region = url.searchParams.get('region');
  if (!region) throw new ConfigError('STORAGE_URL', 'needs ?region=<region>');
  const endpoint = url.searchParams.get('endpoint');
  if (endpoint !== null && !/^https?:\/\/[^/]+/.test(endpoint))
    throw new ConfigError('STORAGE_URL', 'endpoint must be an http(s) URL');
  const pathStyle = url.searchParams.get('force_path_style');
  if (pathStyle !== null && pathStyle !== 'true' && pathStyle !== 'false')
    throw new ConfigError('STORAGE_URL', 'force_path_style must be true or false');
  // From the text as written: URL parsing would resolve `..` segments away.
  const written = raw.slice('s3://'.length).split(/[?#]/)[0];
  const prefix = written.includes('/') ? written.slice(written.indexOf('/')).replace(/^\/+|\/+$/g, '') : '';
  if (prefix && !prefix.split('/').every((s) => /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/.test(s)))
    throw new ConfigError('STORAGE_URL', 'has an invalid prefix');
  const { S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey } = settings;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    throw new ConfigError(
      accessKeyId ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID',
      'is required with the other S3 key',
    );
  return {
    driver: 's3',
    bucket: url.hostname,
    prefix,
    region,
    endpoint: endpoint === null ? null : endpoint.replace(/\/+$/, ''),
    forcePathStyle: pathStyle === 'true',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : null,
  };
}

function openBadgesSettings(settings: EnvSettings, isProduction: boolean, dataDir: string): AppConfig['openBadges'] {
  const enabled = settings.OB_ENABLED ?? !isProduction;
  if (!enabled) return { enabled, signingKeyPem: null };
  if (settings.OB_SIGNING_KEY) return { enabled, signingKeyPem: settings.OB_SIGNING_KEY.replace(/\\n/g, '\n') };
  if (isProduction) throw new ConfigError('OB_SIGNING_KEY', 'is required in production when OB_ENABLED=true');
  const file = join(dataDir, 'ob-signing-key.pem');
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('ed25519');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  return { enabled, signingKeyPem: readFileSync(file, 'utf8') };
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
