import type { LoggerService, LogLevel } from '@nestjs/common';
import pino, { type Logger as PinoLogger } from 'pino';
import type { AppConfig } from '@/config/app-config';
import { requestContext } from './request-context';

/** Fields redacted wherever they appear in a logged object. */
export const REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'headers.cookie',
  'headers.authorization',
  '*.password',
  '*.code',
  '*.token',
  '*.secret',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.recovery_codes',
  '*.otp',
];

type Destination = ReturnType<typeof pino.destination>;
let atExit: Set<Destination> | undefined;

/**
 * One exit listener for the process, flushing every destination made in it: a listener per logger added one per
 * application instance (a test process boots many, and Node warned past ten listeners). The destinations stay until
 * exit, since a line may still be written after an application's shutdown hooks ran.
 */
function flushAtExit(destination: Destination): void {
  if (!atExit) {
    const destinations = (atExit = new Set());
    process.once('exit', () => {
      for (const d of destinations) d.flushSync();
    });
  }
  atExit.add(destination);
}

/**
 * The process's one pino logger: JSON lines, written asynchronously (off the request path) and flushed at
 * exit; every line written while serving a request carries its `request_id` (through AsyncLocalStorage,
 * without a child logger per request).
 */
export function createLoggers(config: Pick<AppConfig, 'logLevel'>): { app: PinoLogger; access: PinoLogger } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  flushAtExit(destination);
  const common = {
    level: config.logLevel,
    base: { service: 'learning-platform' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const app = pino(
    {
      ...common,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      mixin: () => {
        const ctx = requestContext.getStore();
        return ctx ? { request_id: ctx.requestId } : {};
      },
    },
    destination,
  );
  // Access lines are built from known-safe fields (method, redacted URL, status, duration): no redaction pass.
  const access = pino(common, destination);
  return { app, access };
}

/**
 * Nest's logger interface on pino. Accepts Nest's `(message, context)` and pino's `(object, message)` styles:
 * `logger.error({ err }, 'Something failed')`.
 */
export class AppLogger implements LoggerService {
  constructor(
    readonly pino: PinoLogger,
    /** One line per request (see request-logging.ts). */
    readonly access: PinoLogger,
  ) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }
  setLogLevels(_levels: LogLevel[]): void {
    // The level comes from LOG_LEVEL.
  }

  flush(): void {
    this.pino.flush();
  }

  private write(level: pino.Level, message: unknown, rest: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    // Nest passes the context (the Logger's name) last.
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const args = context ? rest.slice(0, -1) : rest;
    if (message !== null && typeof message === 'object' && !(message instanceof Error)) {
      const text = typeof args[0] === 'string' ? args[0] : undefined;
      this.pino[level]({ ...message, context }, text);
    } else if (message instanceof Error) {
      this.pino[level]({ err: message, context }, message.message);
    } else if (level === 'error' && typeof args[0] === 'string' && args[0].includes('\n')) {
      // Nest's own errors: (message, stack, context).
      this.pino[level]({ context, stack: args[0] }, String(message));
    } else {
      this.pino[level]({ context }, String(message));
    }
  }
}
