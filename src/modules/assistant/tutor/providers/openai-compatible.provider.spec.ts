import { FakeOpenAi, hang, json, status, stream, streamThenHang } from '../../../../../test/support/openai-server';
import { GuardedNet } from '@/core/net/guarded-net';
import { AiProviderError, type ChatChunk, ClientGone } from './ai-provider';
import { OpenAiCompatibleProvider, retryDelay } from './openai-compatible.provider';

const messages = [
  { role: 'system' as const, content: 'Be brief.' },
  { role: 'user' as const, content: 'Hi' },
];

async function collect(iterable: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const out: ChatChunk[] = [];
  for await (const c of iterable) out.push(c);
  return out;
}

describe('OpenAI-compatible provider (against a real HTTP server on loopback)', () => {
  const server = new FakeOpenAi();
  const net = new GuardedNet({ allowLoopback: true });
  let baseUrl: string;
  const provider = (options: Partial<ConstructorParameters<typeof OpenAiCompatibleProvider>[0]> = {}) =>
    new OpenAiCompatibleProvider({
      fetch: net.guardedFetch,
      baseUrl,
      apiKey: 'sk-test',
      model: 'fake-model',
      timeoutMs: 5_000,
      backoffMs: 10,
      ...options,
    });
  const ask = (p: OpenAiCompatibleProvider, signal = new AbortController().signal, json = false) =>
    p.chat({ messages, maxOutputTokens: 800, temperature: 0.2, json, signal });

  beforeAll(async () => (baseUrl = await server.start()));
  afterAll(async () => {
    await net.close();
    await server.stop();
  });
  beforeEach(() => server.reset());

  it('streams the deltas, the finish reason and the reported usage; sends the asked request', async () => {
    server.next(stream(['Hel', 'lo [1]'], { usage: { prompt_tokens: 11, completion_tokens: 3 } }));
    expect(await collect(ask(provider()))).toEqual([
      { type: 'delta', text: 'Hel' },
      { type: 'delta', text: 'lo [1]' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', input_tokens: 11, output_tokens: 3 },
    ]);
    const [req] = server.requests;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-test');
    expect(req.body).toEqual({
      model: 'fake-model',
      messages,
      max_tokens: 800,
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('reads `length` as the finish reason, and a stream that finished without [DONE] as complete', async () => {
    server.next(stream(['cut'], { finish: 'length', done: false, usage: null }));
    expect(await collect(ask(provider()))).toEqual([
      { type: 'delta', text: 'cut' },
      { type: 'finish', reason: 'length' },
    ]);
  });

  it('a stream cut before its answer finished is a provider error', async () => {
    server.next((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ choices: [{ delta: { content: 'half' } }] })}\n\n`);
    });
    await expect(collect(ask(provider()))).rejects.toMatchObject({ name: 'AiProviderError', failure: 'provider' });
  });

  it('tries again after 429 and 5xx (before anything streamed), honouring Retry-After', async () => {
    server.next(status(429, { 'retry-after': '0' }), status(503), stream(['ok']));
    const chunks = await collect(ask(provider()));
    expect(chunks[0]).toEqual({ type: 'delta', text: 'ok' });
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after 3 tries, and at once on a 4xx other than 429', async () => {
    server.next(status(500), status(502), status(500), stream(['never']));
    await expect(collect(ask(provider()))).rejects.toMatchObject({ failure: 'provider', status: 500 });
    expect(server.requests).toHaveLength(3);
    server.reset();
    server.next(status(400), stream(['never']));
    await expect(collect(ask(provider()))).rejects.toMatchObject({ failure: 'provider', status: 400 });
    expect(server.requests).toHaveLength(1);
  });

  it('times out when the answer does not start in time (first byte)', async () => {
    server.next(hang);
    const started = collect(ask(provider({ firstByteMs: 50, attempts: 1 })));
    await expect(started).rejects.toMatchObject({ name: 'AiProviderError', failure: 'timeout' });
    await server.requests[0].abortedSignal; // the hanging request was abandoned, not left open
  });

  it('times out a stream that stops in the middle (whole call), after its first delta', async () => {
    server.next(streamThenHang(['partial']));
    const seen: ChatChunk[] = [];
    await expect(
      (async () => {
        for await (const c of ask(provider({ timeoutMs: 200 }))) seen.push(c);
      })(),
    ).rejects.toMatchObject({ failure: 'timeout' });
    expect(seen).toEqual([{ type: 'delta', text: 'partial' }]);
  });

  it("the caller's abort cancels the HTTP request itself", async () => {
    server.next(streamThenHang(['one ']));
    const controller = new AbortController();
    const seen: ChatChunk[] = [];
    const run = (async () => {
      for await (const c of ask(provider(), controller.signal)) {
        seen.push(c);
        controller.abort(new ClientGone());
      }
    })();
    await expect(run).rejects.toBeInstanceOf(ClientGone);
    await server.requests[0].abortedSignal;
    expect(server.requests[0].aborted).toBe(true);
    expect(seen).toEqual([{ type: 'delta', text: 'one ' }]);
  });

  it('JSON mode: one non-streamed call with response_format json_object', async () => {
    server.next(json('{"questions":[]}', { prompt_tokens: 50, completion_tokens: 5 }));
    expect(await collect(ask(provider(), undefined, true))).toEqual([
      { type: 'delta', text: '{"questions":[]}' },
      { type: 'usage', input_tokens: 50, output_tokens: 5 },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(server.requests[0].body).toMatchObject({ stream: false, response_format: { type: 'json_object' } });
    expect(server.requests[0].body.stream_options).toBeUndefined();
  });

  it('a connection refused is a provider error after its tries', async () => {
    const dead = new OpenAiCompatibleProvider({
      fetch: net.guardedFetch,
      baseUrl: 'http://127.0.0.1:1/v1',
      apiKey: null,
      model: 'm',
      timeoutMs: 5_000,
      backoffMs: 5,
    });
    await expect(collect(ask(dead))).rejects.toBeInstanceOf(AiProviderError);
  });
});

describe('retry delay', () => {
  it('follows Retry-After (seconds or a date, capped at 10 s), else doubles from the base', () => {
    expect(retryDelay(1, '2', 500)).toBe(2000);
    expect(retryDelay(1, '600', 500)).toBe(10_000);
    expect(retryDelay(1, new Date(1_000_000 + 3000).toUTCString(), 500, 1_000_000)).toBe(3000);
    expect(retryDelay(1, null, 500)).toBe(500);
    expect(retryDelay(2, null, 500)).toBe(1000);
    expect(retryDelay(3, 'soon', 500)).toBe(2000);
  });
});
