import { request as httpRequest, type IncomingMessage } from 'node:http';
import type TestAgent from 'supertest/lib/agent';
import { requestSignInCode, setCookies, type SignedIn } from './auth';
import type { TestApp } from './test-app';

/** One server-sent event as a client reads it. */
export interface SseEvent {
  id: number;
  event: string;
  // Event data is JSON of several shapes; tests read it loosely.
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * Parses an event stream the way a browser's EventSource does: events end at a blank line; `id:`, `event:` and
 * `data:` fields (several `data:` lines join with newlines); lines starting with `:` are comments.
 */
export function parseSse(text: string): { events: SseEvent[]; comments: string[] } {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    let id = NaN;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('id:')) id = Number(line.slice(3).trim());
      else if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length) events.push({ id, event, data: JSON.parse(data.join('\n')) });
  }
  return { events, comments };
}

export interface SseAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: SseEvent[];
  comments: string[];
  /** The JSON body of an answer that is not a stream (errors before the stream starts). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** POSTs and reads the whole answer: an event stream, or a JSON error envelope. */
export async function postSse(agent: TestAgent, path: string, body: object): Promise<SseAnswer> {
  const res = await agent
    .post(path)
    .send(body)
    .buffer(true)
    .parse((response, done) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (part: string) => (text += part));
      response.on('end', () => done(null, text));
    });
  const text = res.body as string;
  const isStream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
  const parsed = isStream ? parseSse(text) : { events: [], comments: [] };
  return {
    status: res.status,
    headers: res.headers,
    events: parsed.events,
    comments: parsed.comments,
    body: isStream || !text ? null : JSON.parse(text),
  };
}

/** A signed-in person with the raw cookie header too (for plain HTTP clients that read a stream incrementally). */
export interface SignedInWithCookie extends SignedIn {
  cookie: string;
}

/** Signs in through the email code and keeps the session cookies as a header value. */
export async function signInWithCookie(t: TestApp): Promise<SignedInWithCookie> {
  const ip = t.nextIp();
  const agent = t.client(ip);
  const email = t.nextEmail('learner');
  const code = await requestSignInCode(t, agent, email);
  const res = await agent.post('/api/v1/auth/otp/verify').send({ email, code }).expect(200);
  const cookie = [...setCookies(res).values()]
    .filter((c) => c.value !== '')
    .map((c) => `${c.name}=${encodeURIComponent(c.value)}`)
    .join('; ');
  await agent.put('/api/v1/me/onboarding').send({ name: 'Learner', locale: 'en', adult_confirmed: true }).expect(200);
  return { agent, email, user: res.body, ip, cookie };
}

/**
 * Opens a stream with a plain HTTP client and hands over its events as they arrive; `close()` drops the
 * connection mid-stream, as a learner closing the tab does.
 */
export function openSse(
  t: TestApp,
  who: SignedInWithCookie,
  path: string,
  body: object,
): { events: AsyncGenerator<SseEvent>; status: Promise<number>; close: () => void } {
  const payload = JSON.stringify(body);
  let resolveStatus!: (n: number) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const req = httpRequest(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      cookie: who.cookie,
      'x-forwarded-for': who.ip,
    },
  });
  const responses = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  req.end(payload);
  async function* events(): AsyncGenerator<SseEvent> {
    const res = await responses;
    resolveStatus(res.statusCode ?? 0);
    res.setEncoding('utf8');
    let buffer = '';
    try {
      for await (const part of res) {
        buffer += part as string;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          yield* parseSse(buffer.slice(0, end + 2)).events;
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // The connection was dropped on purpose.
    }
  }
  return { events: events(), status, close: () => req.destroy() };
}
