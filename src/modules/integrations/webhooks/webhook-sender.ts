import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AddressRefused, GuardedNet, isLoopbackHostname } from '@/core/net/guarded-net';
import { DELIVERY_TIMEOUT_MS } from './webhook-events';

/** Why a URL may not receive webhooks (the message is shown in a 422 or written to `last_error`). */
export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

export interface SendResult {
  /** The HTTP status, or null when no answer came (refused target, network error, timeout). */
  status: number | null;
  error: string | null;
  ms: number;
}

const URL_MAX = 2048;
/** How much of an answer is read (and thrown away) before the connection is reused. */
const ANSWER_MAX_BYTES = 64 * 1024;

/**
 * Posts webhooks to integrators' endpoints (extensions-v2 25.3). A target must be `https` and every address its
 * name resolves to must be public (the core `public-address` rule). The check runs at creation (a 422) and at every
 * delivery inside the connection's own look-up (the core's guarded agents, extensions-v3 6.7), so a DNS answer that
 * changes (rebinding) cannot reach a private address. Outside production loopback addresses are accepted, over
 * `http` too (extensions-v2 28); in production they are refused like any private address. Redirects are not
 * followed; 10 s per attempt.
 */
@Injectable()
export class WebhookSender {
  readonly allowLoopback: boolean;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly net: GuardedNet,
  ) {
    this.allowLoopback = !config.isProduction;
  }

  /** The URL's own rules (scheme, length, no credentials); throws TargetRefused. */
  parse(raw: string): URL {
    if (raw.length > URL_MAX) throw new TargetRefused(`must be at most ${URL_MAX} characters`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new TargetRefused('must be an absolute URL');
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.allowLoopback)) {
      throw new TargetRefused('must be an https URL');
    }
    if (url.username || url.password) throw new TargetRefused('must not carry credentials');
    if (url.hash) throw new TargetRefused('must not have a fragment');
    // Plain http only to loopback (outside production): never over a public network.
    if (url.protocol === 'http:' && !isLoopbackHostname(url.hostname)) {
      throw new TargetRefused('must be an https URL (http only on loopback outside production)');
    }
    return url;
  }

  /** Checks a URL now (creation, change): its rules and every address its name resolves to. */
  async check(raw: string): Promise<URL> {
    const url = this.parse(raw);
    const problem = await this.net.hostProblem(url.hostname);
    if (problem) throw new TargetRefused(problem);
    return url;
  }

  /** One attempt: POST the body with the headers; never throws. */
  async send(raw: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    let url: URL;
    try {
      // No look-up here: the guarded agent's look-up checks the addresses the connection uses (a kept-alive
      // connection was checked when it opened).
      url = this.parse(raw);
    } catch (err) {
      return { status: null, error: (err as Error).message, ms: elapsed() };
    }
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<SendResult, 'ms'>): void => {
        if (settled) return;
        settled = true;
        resolve({ ...result, ms: elapsed() });
      };
      const https = url.protocol === 'https:';
      const req = (https ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        agent: https ? this.net.httpsAgent : this.net.httpAgent,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      });
      req.once('response', (res) => {
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > ANSWER_MAX_BYTES) res.destroy();
        });
        res.once('end', () => finish({ status: res.statusCode ?? null, error: null }));
        res.once('close', () => finish({ status: res.statusCode ?? null, error: null }));
        res.once('error', () => finish({ status: res.statusCode ?? null, error: null }));
      });
      req.once('error', (err: Error & { code?: string }) => {
        const message =
          err.name === 'AbortError' || err.name === 'TimeoutError'
            ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`
            : err instanceof TargetRefused || err instanceof AddressRefused
              ? err.message
              : `${err.code ?? err.name}: ${err.message}`;
        finish({ status: null, error: message.slice(0, 500) });
      });
      req.end(body);
    });
  }
}
