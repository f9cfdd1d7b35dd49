import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/**
 * An integrator's HTTP endpoint on 127.0.0.1: records every request and answers the statuses queued for its path in
 * order (200 once the queue is empty).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly replies = new Map<string, number[]>();
  private server?: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const queue = this.replies.get(path);
        const status = queue?.length ? queue.shift()! : 200;
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The next answers of this path, in order. */
  answer(path: string, ...statuses: number[]): void {
    this.replies.set(path, [...(this.replies.get(path) ?? []), ...statuses]);
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
