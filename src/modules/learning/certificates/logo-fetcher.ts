import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Injectable, Inject, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { GuardedNet } from '@/core/net/guarded-net';

/** How long fetching a logo may take in all, redirects included: 3 s. Injected, so tests can shorten it. */
export const LOGO_FETCH_TIMEOUT_MS = Symbol('LOGO_FETCH_TIMEOUT_MS');
export const DEFAULT_LOGO_TIMEOUT_MS = 3_000;
export const LOGO_MAX_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 3;

export type LogoImage = { format: 'png' | 'jpeg'; data: Buffer };

/** PNG or JPEG by their signatures; anything else (SVG, GIF, HTML error pages) is refused. */
export function imageFormat(data: Buffer): 'png' | 'jpeg' | null {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return 'png';
  }
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  return null;
}

class LogoRefused extends Error {}

/**
 * Fetches an organization's certificate logo for a PDF: http(s) only, every address the name resolves to must
 * be public (the core's guarded agents check it in the connection's own look-up, so a DNS answer cannot change
 * between check and connect; loopback only outside production, extensions-v3 6.7), at most 3 redirects, 3 s in all (LOGO_FETCH_TIMEOUT_MS), 1 MiB, PNG or JPEG.
 * Any failure answers null and the certificate is rendered without the logo. Successes are cached briefly.
 */
@Injectable()
export class LogoFetcher {
  private readonly logger = new Logger('LogoFetcher');
  private readonly cache = new LRUCache<string, LogoImage>({
    maxSize: 16 * LOGO_MAX_BYTES,
    sizeCalculation: (logo) => logo.data.length || 1,
    ttl: 5 * 60_000,
  });

  constructor(
    private readonly net: GuardedNet,
    @Inject(LOGO_FETCH_TIMEOUT_MS) private readonly timeoutMs: number,
  ) {}

  async fetch(url: string): Promise<LogoImage | null> {
    const cached = this.cache.get(url);
    if (cached) return cached;
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      let target = new URL(url);
      for (let hop = 0; ; hop++) {
        const res = await this.get(target, deadline);
        if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
          res.resume();
          if (hop >= MAX_REDIRECTS) throw new LogoRefused('too many redirects');
          target = new URL(res.headers.location, target);
          continue;
        }
        const data = await this.body(res);
        const format = imageFormat(data);
        if (!format) throw new LogoRefused('not a PNG or JPEG image');
        const logo = { format, data };
        this.cache.set(url, logo);
        return logo;
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'Certificate logo not used');
      return null;
    }
  }

  private get(target: URL, signal: AbortSignal): Promise<IncomingMessage> {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return Promise.reject(new LogoRefused(`protocol ${target.protocol} refused`));
    }
    const https = target.protocol === 'https:';
    const request = https ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = request(target, {
        method: 'GET',
        signal,
        agent: https ? this.net.httpsAgent : this.net.httpAgent,
        headers: { accept: 'image/png, image/jpeg', 'user-agent': 'learning-platform-certificates' },
      });
      req.once('response', resolve);
      req.once('error', reject);
      req.end();
    });
  }

  private body(res: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new LogoRefused(`status ${res.statusCode}`));
      }
      if (Number(res.headers['content-length'] ?? 0) > LOGO_MAX_BYTES) {
        res.destroy();
        return reject(new LogoRefused('too large'));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > LOGO_MAX_BYTES) {
          res.destroy(new LogoRefused('too large'));
          return;
        }
        chunks.push(chunk);
      });
      res.once('end', () => resolve(Buffer.concat(chunks)));
      res.once('error', reject);
      res.once('close', () => {
        if (!res.complete) reject(new LogoRefused('connection closed early'));
      });
    });
  }
}
