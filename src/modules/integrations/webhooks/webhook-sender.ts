import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { isAllowedAddress } from '@/core/net/public-address';
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
 * name resolves to must be public (the core `public-address` rule). The check runs at creation and again inside
 * the socket's own look-up at every delivery, so a DNS answer that changes (rebinding) cannot reach a private
 * address. Outside production loopback addresses are accepted, over `http` too (extensions-v2 28); in production
 * they are refused like any private address. Redirects are not followed; 10 s per attempt.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  readonly allowLoopback: boolean;
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 64 });

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.allowLoopback = !config.isProduction;
  }

  onModuleDestroy(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
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
    return url;
  }

  /** Checks a URL now (creation, change): its rules and every address its name resolves to. */
  async check(raw: string): Promise<URL> {
    const url = this.parse(raw);
    const addresses = await this.resolve(url.hostname);
    this.checkAddresses(url, addresses);
    return url;
  }

  /** One attempt: POST the body with the headers; never throws. */
  async send(raw: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    let url: URL;
    try {
      // Resolved and checked before every attempt; the socket's own look-up checks again what it connects to
      // (a kept-alive connection was checked when it opened).
      url = await this.check(raw);
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
        agent: https ? this.httpsAgent : this.httpAgent,
        lookup: this.guardedLookup(url),
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
            : err instanceof TargetRefused
              ? err.message
              : `${err.code ?? err.name}: ${err.message}`;
        finish({ status: null, error: message.slice(0, 500) });
      });
      req.end(body);
    });
  }

  private checkAddresses(url: URL, addresses: readonly { address: string }[]): void {
    if (addresses.length === 0) throw new TargetRefused(`${url.hostname} does not resolve`);
    for (const { address } of addresses) {
      if (!isAllowedAddress(address, this.allowLoopback)) {
        throw new TargetRefused(`${url.hostname} resolves to a non-public address`);
      }
    }
    // Plain http only to loopback (outside production): never over a public network.
    if (url.protocol === 'http:' && addresses.some(({ address }) => isAllowedAddress(address, false))) {
      throw new TargetRefused('must be an https URL (http only on loopback outside production)');
    }
  }

  private resolve(hostname: string): Promise<LookupAddress[]> {
    const host = bare(hostname);
    if (isIP(host)) return Promise.resolve([{ address: host, family: isIP(host) }]);
    return new Promise((resolve, reject) => {
      dnsLookup(host, { all: true }, (err, addresses) => {
        if (err) return reject(new TargetRefused(`${hostname} does not resolve`));
        resolve(addresses);
      });
    });
  }

  /** The system look-up, refusing the connection when any address of the name is not allowed. */
  private guardedLookup(url: URL): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
        if (err) return callback(err, '', 0);
        try {
          this.checkAddresses(url, addresses);
        } catch (refused) {
          return callback(refused as Error, '', 0);
        }
        if ((options as { all?: boolean }).all) {
          (callback as unknown as (e: null, list: LookupAddress[]) => void)(null, addresses);
        } else {
          callback(null, addresses[0].address, addresses[0].family);
        }
      });
    };
  }
}

function bare(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}
