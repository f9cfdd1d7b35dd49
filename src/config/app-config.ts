import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
} from 'class-validator';

const toBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return value;
};
const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : value;
const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const URL_OPTS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/**
 * Raw settings exactly as the environment gives them, validated field by field.
 * `loadConfig` turns this into the resolved, typed `AppConfig` the application uses.
 */
export class EnvSettings {
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(['development', 'test', 'production'])
  NODE_ENV?: 'development' | 'test' | 'production';

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'must be a postgres:// URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE?: number;

  /** A direct (session) connection for migrations and session-level work, when DATABASE_URL is a pooler. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'must be a postgres:// URL' })
  DATABASE_DIRECT_URL?: string;

  /** Named prepared statements on the hot reads; false behind PgBouncer before 1.21 (transaction pooling). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  DATABASE_NAMED_STATEMENTS?: boolean;

  /** What the query guard does with a statement on an organization's table without the built predicate. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(['refuse', 'log', 'off'])
  DATABASE_TENANCY_GUARD?: 'refuse' | 'log' | 'off';

  /** After SIGTERM, how long an API instance keeps accepting connections while /ready answers 503. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_DRAIN_MS?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^rediss?:\/\/.+/, { message: 'must be a redis:// URL' })
  REDIS_URL?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'must be 1..64 of A-Z a-z 0-9 : _ -' })
  REDIS_KEY_PREFIX?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^smtps?:\/\/.+/, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(3)
  MAIL_FROM?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl(URL_OPTS)
  BASE_URL?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl(URL_OPTS)
  WEB_URL?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl(URL_OPTS)
  APP_URL?: string;

  @IsOptional()
  @Transform(toList)
  @IsEmail({}, { each: true })
  PLATFORM_ADMIN_EMAILS?: string[];

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  COOKIE_SECURE?: boolean;

  /** Express "trust proxy": true/false, a hop count, or a comma-separated list of addresses/CIDRs. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^(true|false|\d+|[0-9a-fA-F.:/,\s]+|loopback|linklocal|uniquelocal)$/, {
    message: 'must be true, false, a hop count or a list of addresses',
  })
  TRUST_PROXY?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(32, { message: 'must be at least 32 characters' })
  AUTH_SECRET?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'must be 32 bytes in base64' })
  DATA_ENCRYPTION_KEY?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;

  @IsOptional()
  @Transform(toList)
  @IsUrl(URL_OPTS, { each: true })
  CORS_ORIGINS?: string[];

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  DATA_DIR?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  PROCESS_JOBS?: boolean;

  /**
   * How long a running job's lock lives in Redis without being renewed (its worker renews it at half this). A job
   * whose worker died is handed to another worker between one and three of these later.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  JOBS_LOCK_MS?: number;

  /** Mounts the benchmarks' baseline routes (bench/README.md); never set in a deployment. */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  BENCH_ROUTES?: boolean;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  MIGRATE_ON_START?: boolean;

  /** Where generated files live (static SEO pages, for one). A `file://` shorthand; STORAGE_URL wins. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  STORAGE_DIR?: string;

  /** The file store: `file:///absolute/path` or `s3://<bucket>[/<prefix>]?region=<r>[&endpoint=<url>][&force_path_style=true]`. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^(file|s3):\/\/.+/, { message: 'must be a file:// or s3:// URL' })
  STORAGE_URL?: string;

  /** S3 credentials of the file store (else the AWS SDK's default chain). */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  S3_ACCESS_KEY_ID?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  S3_SECRET_ACCESS_KEY?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(1)
  GOOGLE_CLIENT_ID?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(1)
  GOOGLE_CLIENT_SECRET?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl(URL_OPTS)
  GOOGLE_ISSUER?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(1)
  MICROSOFT_CLIENT_ID?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(1)
  MICROSOFT_CLIENT_SECRET?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[A-Za-z0-9.-]{1,64}$/, { message: 'must be a tenant id or name' })
  MICROSOFT_TENANT?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl(URL_OPTS)
  MICROSOFT_ISSUER?: string;

  /** Institutional SSO is offered (connections can be used); false answers `feature_disabled`. */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  SSO_ENABLED?: boolean;

  /** Passkeys (WebAuthn) are offered; false answers 404 `feature_disabled` on their routes. */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  PASSKEYS_ENABLED?: boolean;

  /** The WebAuthn relying party id (default: the host of WEB_URL); a registrable suffix of every origin. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, { message: 'must be a host name' })
  WEBAUTHN_RP_ID?: string;

  /** The relying party name authenticators show (default "Learning Platform"). */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  WEBAUTHN_RP_NAME?: string;

  /** More origins passkeys may be used from, besides the origin of WEB_URL (comma-separated). */
  @IsOptional()
  @Transform(toList)
  @IsUrl(URL_OPTS, { each: true })
  WEBAUTHN_ORIGINS?: string[];
  /** SCIM 2.0 provisioning (`/scim/v2` and the SCIM token routes); `false` answers 404 `feature_disabled`. */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  SCIM_ENABLED?: boolean;

  /** Requests per minute per SCIM token (extensions-v3 2.5: 1 200); 0 turns the limit off (benchmarks). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  SCIM_TOKEN_PER_MINUTE?: number;
  /** LTI 1.3 platform routes are on; false answers 404 `feature_disabled` on them (extensions-v3 7). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  LTI_ENABLED?: boolean;

  /** AGS and NRPS requests per minute per tool (its service tokens together); 0 turns the limit off (benchmarks). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  LTI_SERVICE_PER_MINUTE?: number;

  /** `host:port` of the DNS server used for domain verification (default: the system resolver). */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[A-Za-z0-9.:[\]-]+:\d{1,5}$/, { message: 'must be host:port' })
  DNS_RESOLVER?: string;

  // Wave 2 (extensions-v2 26.6). Each feature is off, or local, without its setting.

  /** VAPID key pair (base64url, from `web-push generate-vapid-keys`); both or neither. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[A-Za-z0-9_-]{80,100}$/, { message: 'must be a base64url P-256 public key' })
  VAPID_PUBLIC_KEY?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[A-Za-z0-9_-]{40,50}$/, { message: 'must be a base64url P-256 private key' })
  VAPID_PRIVATE_KEY?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^(mailto:.+|https:\/\/.+)$/, { message: 'must be a mailto: or https: URL' })
  VAPID_SUBJECT?: string;

  /** Base64 of a Firebase service-account JSON; without it native devices are stored and nothing is sent. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[A-Za-z0-9+/=\s]+$/, { message: 'must be base64' })
  FCM_CREDENTIALS?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl(URL_OPTS)
  FCM_BASE_URL?: string;

  /** Standard Webhooks secrets (`whsec_` + base64) of the email provider, comma-separated during a rotation. */
  @IsOptional()
  @Transform(toList)
  @Matches(/^whsec_[A-Za-z0-9+/=]{16,}$/, { each: true, message: 'must be whsec_ secrets, comma-separated' })
  EMAIL_WEBHOOK_SECRET?: string[];

  /** OpenAI-compatible base URL ending in /v1; without it the local extractive tutor answers. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsUrl(URL_OPTS)
  AI_BASE_URL?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(1)
  AI_API_KEY?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[A-Za-z0-9._:/@-]{1,128}$/, { message: 'must be a model name' })
  AI_MODEL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  AI_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(16)
  @Max(32_000)
  AI_MAX_OUTPUT_TOKENS?: number;

  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && value.trim() !== '' ? Number(value) : value,
  )
  @Min(0)
  @Max(1)
  TELEMETRY_SAMPLE_RATE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  REPORT_MAX_ROWS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DUEL_ROUND_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60_000)
  DUEL_COUNTDOWN_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DUEL_RECONNECT_WINDOW_MS?: number;

  /** Address told of contact and demo requests (public forms). */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsEmail()
  CONTACT_INBOX?: string;

  /** Address told of new support tickets. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsEmail()
  SUPPORT_INBOX?: string;

  /** Open Badges 3.0 credentials (default false in production, else true). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  OB_ENABLED?: boolean;

  /** Ed25519 private key (PKCS#8 PEM) that signs Open Badges credentials; `\n` may stand for newlines. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/-----BEGIN PRIVATE KEY-----/, { message: 'must be a PKCS#8 PEM private key' })
  OB_SIGNING_KEY?: string;

  /** Bearer token that protects GET /metrics (without it and without METRICS_PORT, /metrics answers 404). */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  METRICS_TOKEN?: string;

  /** Serve /metrics on this separate port (bound to loopback unless METRICS_HOST says otherwise). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  METRICS_HOST?: string;

  /** Request budgets per minute (extensions-v3 4); 0 turns one off. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  API_BUDGET_TOKEN_PER_MINUTE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  API_BUDGET_SESSION_PER_MINUTE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  API_BUDGET_ANONYMOUS_PER_MINUTE?: number;
}

export type NodeEnv = 'development' | 'test' | 'production';

/** The resolved configuration: every value present, typed, defaults applied. */
export interface AppConfig {
  readonly nodeEnv: NodeEnv;
  readonly isProduction: boolean;
  readonly port: number;
  readonly database: {
    readonly url: string | null;
    /** Migrations and session-level work: DATABASE_DIRECT_URL, else `url` (a pooler in transaction mode is not). */
    readonly directUrl: string | null;
    readonly poolSize: number;
    /** Named prepared statements on the driver's pool (off with DATABASE_NAMED_STATEMENTS=false or embedded). */
    readonly namedStatements: boolean;
    /** The tenancy guard of every statement (src/core/database/tenancy-guard.ts): refuse, log or off. */
    readonly tenancyGuard: 'refuse' | 'log' | 'off';
  };
  /** SIGTERM: /ready answers 503 at once; new connections are still accepted this long, then the server closes. */
  readonly shutdownDrainMs: number;
  readonly redis: { readonly url: string | null; readonly keyPrefix: string };
  readonly mail: { readonly smtpUrl: string | null; readonly from: string };
  readonly baseUrl: string;
  readonly webUrl: string;
  readonly appUrl: string;
  readonly platformAdminEmails: readonly string[];
  readonly cookieSecure: boolean;
  readonly trustProxy: boolean | number | string;
  readonly authSecret: string;
  readonly dataEncryptionKey: Buffer;
  readonly logLevel: string;
  readonly corsOrigins: readonly string[];
  readonly dataDir: string;
  /** Whether this process runs background job processors (an API-only instance sets PROCESS_JOBS=false). */
  readonly processJobs: boolean;
  /** JOBS_LOCK_MS: a running job's lock in Redis, and how often a worker looks for jobs whose worker died. */
  readonly jobsLockMs: number;
  /**
   * Whether the benchmarks' baseline routes are mounted (BENCH_ROUTES, default off): routes that answer what a
   * measured route answers through the same pipeline without its work (bench/README.md). Off, they do not exist.
   */
  readonly benchRoutes: boolean;
  readonly migrateOnStart: boolean;
  /** The local folder of the `file://` store (also the default when the store is on S3; nothing writes there then). */
  readonly storageDir: string;
  /** Where the file store keeps files (STORAGE_URL, extensions-v3 5.1). */
  readonly storage: StorageSettings;
  /** External sign-in providers; null when not configured (their start answers 503 `oauth_not_configured`). */
  readonly providers: {
    readonly google: { readonly clientId: string; readonly clientSecret: string; readonly issuer: string } | null;
    readonly microsoft: {
      readonly clientId: string;
      readonly clientSecret: string;
      readonly tenant: string;
      readonly issuer: string;
    } | null;
  };
  readonly sso: { readonly enabled: boolean; readonly dnsResolver: string | null };
  /** Passkeys (extensions-v3 3): the relying party and the origins its answers may come from. */
  readonly passkeys: {
    readonly enabled: boolean;
    readonly rpId: string;
    readonly rpName: string;
    readonly origins: readonly string[];
  };
  readonly scim: { readonly enabled: boolean; readonly tokenPerMinute: number };
  readonly lti: { readonly enabled: boolean; readonly servicePerMinute: number };
  readonly push: {
    /** Web push keys; null: web push is off (404 `push_disabled`). */
    readonly vapid: { readonly publicKey: string; readonly privateKey: string; readonly subject: string } | null;
    /** Firebase Cloud Messaging; null: native devices are stored, nothing is sent. */
    readonly fcm: {
      readonly projectId: string;
      readonly clientEmail: string;
      readonly privateKey: string;
      readonly tokenUri: string;
      readonly baseUrl: string;
    } | null;
  };
  /** Standard Webhooks secrets of the email provider; empty: the route answers 404 `feature_disabled`. */
  readonly emailWebhookSecrets: readonly string[];
  readonly ai: {
    /** Null: the local extractive provider. */
    readonly remote: { readonly baseUrl: string; readonly apiKey: string | null; readonly model: string } | null;
    readonly timeoutMs: number;
    readonly maxOutputTokens: number;
  };
  readonly telemetrySampleRate: number;
  /** Rows above which an organization report fails with `report_too_large` (extensions-v2 15.2: 200 000). */
  readonly reportMaxRows: number;
  readonly duels: { readonly roundMs: number; readonly countdownMs: number; readonly reconnectWindowMs: number };
  readonly contactInbox: string | null;
  readonly supportInbox: string | null;
  readonly openBadges: { readonly enabled: boolean; readonly signingKeyPem: string | null };
  readonly metrics: { readonly token: string | null; readonly port: number | null; readonly host: string };
  /** Requests per minute per token, per cookie session, per client address (IPv6 by /64); 0 is off. */
  readonly budgets: {
    readonly tokenPerMinute: number;
    readonly sessionPerMinute: number;
    readonly anonymousPerMinute: number;
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/** The file store's driver and its settings. */
export type StorageSettings =
  | { readonly driver: 'file'; readonly dir: string }
  | {
      readonly driver: 's3';
      readonly bucket: string;
      /** Key prefix inside the bucket, without slashes at either end ('' for none). */
      readonly prefix: string;
      readonly region: string;
      readonly endpoint: string | null;
      readonly forcePathStyle: boolean;
      /** Null: the AWS SDK's default credential chain. */
      readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
    };
