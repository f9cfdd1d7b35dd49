import type { Response } from 'express';

export const PING_INTERVAL_MS = 15_000;

/**
 * A server-sent event stream on an Express response (extensions-v2 23.4): `200 text/event-stream; charset=utf-8`,
 * `Cache-Control: no-store`, `X-Accel-Buffering: no` (proxies must not buffer it); every event has `id: <n>` from 1,
 * `event: <name>` and one `data:` line of JSON; a comment line `: ping` every 15 s keeps idle proxies from closing it.
 */
export class SseStream {
  private id = 0;
  private readonly ping: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly res: Response,
    pingMs = PING_INTERVAL_MS,
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Accel-Buffering', 'no');
    res.setHeader('Connection', 'keep-alive');
    res.flushHeaders();
    this.ping = setInterval(() => this.write(': ping\n\n'), pingMs);
    this.ping.unref();
    res.once('close', () => this.stop());
  }

  /** Sends one event; waits while the client's buffer is full (never longer than the connection lives). */
  async send(event: string, data: object): Promise<void> {
    if (this.closed) return;
    this.id++;
    if (!this.write(`id: ${this.id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.res.off('drain', done);
          this.res.off('close', done);
          resolve();
        };
        this.res.on('drain', done);
        this.res.on('close', done);
      });
    }
  }

  end(): void {
    this.stop();
    if (!this.res.writableEnded) this.res.end();
  }

  private write(chunk: string): boolean {
    if (this.closed || this.res.writableEnded) return true;
    return this.res.write(chunk);
  }

  private stop(): void {
    this.closed = true;
    clearInterval(this.ping);
  }
}
