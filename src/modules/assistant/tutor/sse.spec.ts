import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { PING_INTERVAL_MS, SseStream } from './sse';

/** Enough of an Express response to watch what the stream writes. */
class FakeResponse extends EventEmitter {
  statusCode = 0;
  headers: Record<string, string> = {};
  written: string[] = [];
  writableEnded = false;
  flushed = false;
  status(code: number): this {
    this.statusCode = code;
    return this;
  }
  setHeader(name: string, value: string): void {
    this.headers[name.toLowerCase()] = value;
  }
  flushHeaders(): void {
    this.flushed = true;
  }
  write(chunk: string): boolean {
    this.written.push(chunk);
    return true;
  }
  end(): void {
    this.writableEnded = true;
  }
}

describe('server-sent events (extensions-v2 23.4)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('answers 200 with the event-stream headers, numbers events from 1, one data line of JSON each', async () => {
    const res = new FakeResponse();
    const stream = new SseStream(res as unknown as Response);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    expect(res.flushed).toBe(true);
    await stream.send('start', { a: 1 });
    await stream.send('delta', { text: 'line\nnext' });
    stream.end();
    expect(res.written).toEqual([
      'id: 1\nevent: start\ndata: {"a":1}\n\n',
      'id: 2\nevent: delta\ndata: {"text":"line\\nnext"}\n\n',
    ]);
    expect(res.writableEnded).toBe(true);
  });

  it('sends a `: ping` comment every 15 s until it ends', () => {
    const res = new FakeResponse();
    const stream = new SseStream(res as unknown as Response);
    jest.advanceTimersByTime(PING_INTERVAL_MS - 1);
    expect(res.written).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(res.written).toEqual([': ping\n\n']);
    jest.advanceTimersByTime(PING_INTERVAL_MS);
    expect(res.written).toEqual([': ping\n\n', ': ping\n\n']);
    stream.end();
    jest.advanceTimersByTime(PING_INTERVAL_MS * 3);
    expect(res.written).toHaveLength(2);
  });

  it('writes nothing more once the client is gone', async () => {
    const res = new FakeResponse();
    const stream = new SseStream(res as unknown as Response);
    res.emit('close');
    await stream.send('delta', { text: 'x' });
    jest.advanceTimersByTime(PING_INTERVAL_MS * 2);
    expect(res.written).toEqual([]);
  });
});
