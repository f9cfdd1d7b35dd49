import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import type { Logger as PinoLogger } from 'pino';
import { requestLogging, safeUrl } from './request-logging';

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
    const res = Object.assign(new EventEmitter(), { statusCode: 200 });
    const next: NextFunction = () => undefined;
    requestLogging(logger as unknown as PinoLogger)(req as unknown as Request, res as unknown as Response, next);
    res.emit('finish');
    expect(lines).toEqual([expect.objectContaining({ url: '/api/v1/calendar/[token].ics', status: 200 })]);
    expect(JSON.stringify(lines)).not.toContain(token);
  });
});
