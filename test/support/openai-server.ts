import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request the fake server received. */
export interface SeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    model?: string;
    messages?: { role: string; content: string }[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    response_format?: { type: string };
    max_tokens?: number;
    temperature?: number;
  };
  /** The client went away before the response ended (an aborted call). */
  aborted: boolean;
  /** Resolves when the client went away before the response ended. */
  abortedSignal: Promise<void>;
}

/** How the server answers one request. */
export type Behaviour = (res: ServerResponse, req: SeenRequest) => void | Promise<void>;

const chunk = (body: object): string => `data: ${JSON.stringify(body)}\n\n`;

/** Streams chat-completion chunks (one per text), the finish reason, the usage, then `[DONE]`. */
export function stream(
  texts: string[],
  options: {
    usage?: { prompt_tokens: number; completion_tokens: number } | null;
    finish?: string;
    done?: boolean;
  } = {},
): Behaviour {
  return (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': keep-alive comment\n\n');
    for (const text of texts)
      res.write(chunk({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] }));
    res.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: options.finish ?? 'stop' }] }));
    const usage = options.usage === undefined ? { prompt_tokens: 120, completion_tokens: 30 } : options.usage;
    if (usage)
      res.write(
        chunk({ choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
      );
    if (options.done !== false) res.write('data: [DONE]\n\n');
    res.end();
  };
}

/** Streams some pieces, then holds the connection open without finishing (until the client leaves). */
export function streamThenHang(texts: string[]): Behaviour {
  return (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const text of texts)
      res.write(chunk({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] }));
  };
}

/** Answers with a status (and headers), as a rate-limited or failing provider does. */
export function status(code: number, headers: Record<string, string> = {}): Behaviour {
  return (res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message: `status ${code}` } }));
  };
}

/** Never answers (no status line): the first-byte timeout's case. */
export const hang: Behaviour = () => undefined;

/** A JSON-mode answer (`stream: false`) whose message content is `content`. */
export function json(content: string, usage = { prompt_tokens: 400, completion_tokens: 200 }): Behaviour {
  return (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      }),
    );
  };
}

/**
 * A real OpenAI-compatible HTTP server on loopback (`POST /v1/chat/completions`) whose answers the test scripts one
 * request at a time; it records every request and whether the client aborted it.
 */
export class FakeOpenAi {
  readonly requests: SeenRequest[] = [];
  private readonly queue: Behaviour[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** What answers when nothing is queued. */
  fallback: Behaviour = stream(['Hello ', 'from the provider [1].']);

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Queues behaviours for the next requests, in order. */
  next(...behaviours: Behaviour[]): void {
    this.queue.push(...behaviours);
  }

  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const part of req) raw += String(part);
    let markAborted!: () => void;
    const seen: SeenRequest = {
      path: req.url ?? '',
      headers: req.headers,
      body: raw ? (JSON.parse(raw) as SeenRequest['body']) : {},
      aborted: false,
      abortedSignal: new Promise<void>((resolve) => (markAborted = resolve)),
    };
    res.once('close', () => {
      if (!res.writableFinished) {
        seen.aborted = true;
        markAborted();
      }
    });
    this.requests.push(seen);
    if (req.method !== 'POST' || seen.path !== '/v1/chat/completions') return status(404)(res, seen);
    await (this.queue.shift() ?? this.fallback)(res, seen);
  }
}
