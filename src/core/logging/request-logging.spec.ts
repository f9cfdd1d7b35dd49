import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import type { Logger as PinoLogger } from 'pino';
import { observeRequests, safeUrl } from './request-logging';

describe('safeUrl', () => {
  it('redacts secret query values and keeps the rest', () => {
    expect(safeUrl('/api/v1/auth/oauth/google/callback?code=abc&state=xyz&x=1')).toBe(
      '/api/v1/auth/oauth/google/callback?code=%5Bredacted%5D&state=%5Bredacted%5D&x=1',
    );
    expect(safeUrl('/api/v1/notifications/unsubscribe?token=deadbeef&type=all')).toContain('type=all');
    expect(safeUrl('/api/v1/notifications/unsubscribe?token=deadbeef&type=all')).not.toContain('deadbeef');
    expect(safeUrl('/health')).toBe('/health');
  });

  it('writes the calendar feed token as [token] (extensions-v2 25.2)', () => {
    const token = 'q3Jv0x9l0TzV3yq8f0d4bVbqT1m2E6gF0uJ9p7kZ4aQ';
    expect(safeUrl(`/api/v1/calendar/${token}.ics`)).toBe('/api/v1/calendar/[token].ics');
    expect(safeUrl(`/api/v1/calendar/${token}.ics?x=1`)).toBe('/api/v1/calendar/[token].ics?x=1');
    expect(safeUrl(`/api/v1/calendar/${token}`)).toBe('/api/v1/calendar/[token]');
    expect(safeUrl(`/api/v1/calendar/${token}.ics`)).not.toContain(token);
    expect(safeUrl('/api/v1/me/calendar-feed')).toBe('/api/v1/me/calendar-feed');
  });

  it('the access log line of a feed request carries [token], never the token', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = { info: (obj: Record<string, unknown>) => lines.push(obj), error: () => undefined };
    const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdE';
    const req = {
      url: `/api/v1/calendar/${token}.ics`,
      originalUrl: `/api/v1/calendar/${token}.ics`,
      method: 'GET',
      headers: {},
    };
    const res = Object.assign(new EventEmitter(), { statusCode: 200, setHeader: () => undefined });
    const next: NextFunction = () => undefined;
    const observed: string[] = [];
    const metrics = { observeHttp: (r: Request) => void observed.push(r.method) };
    observeRequests(logger as unknown as PinoLogger, metrics)(
      req as unknown as Request,
      res as unknown as Response,
      next,
    );
    res.emit('finish');
    expect(lines).toEqual([expect.objectContaining({ url: '/api/v1/calendar/[token].ics', status: 200 })]);
    expect(JSON.stringify(lines)).not.toContain(token);
    expect(observed).toEqual(['GET']);
  });

  it('one middleware: the request id on req and in X-Request-Id, the metric for probes, no log line for them', () => {
    const lines: unknown[] = [];
    const logger = { info: (obj: unknown) => lines.push(obj), error: (obj: unknown) => lines.push(obj) };
    const headers: Record<string, string> = {};
    const res = Object.assign(new EventEmitter(), {
      statusCode: 200,
      setHeader: (name: string, value: string) => void (headers[name] = value),
    });
    const seconds: number[] = [];
    const metrics = { observeHttp: (_r: Request, _s: Response, s: number) => void seconds.push(s) };
    const req = { url: '/version', originalUrl: '/version', method: 'GET', headers: { 'x-request-id': 'abc-1' } };
    let nextCalled = false;
    observeRequests(logger as unknown as PinoLogger, metrics)(
      req as unknown as Request,
      res as unknown as Response,
      () => (nextCalled = true),
    );
    expect(nextCalled).toBe(true);
    expect((req as { id?: string }).id).toBe('abc-1');
    expect(headers['X-Request-Id']).toBe('abc-1');
    res.emit('finish');
    expect(seconds).toHaveLength(1);
    expect(seconds[0]).toBeGreaterThanOrEqual(0);
    expect(lines).toEqual([]);
  });
});
