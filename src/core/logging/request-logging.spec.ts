import { safeUrl } from './request-logging';

describe('safeUrl', () => {
  it('redacts secret query values and keeps the rest', () => {
    expect(safeUrl('/api/v1/auth/oauth/google/callback?code=abc&state=xyz&x=1')).toBe(
      '/api/v1/auth/oauth/google/callback?code=%5Bredacted%5D&state=%5Bredacted%5D&x=1',
    );
    expect(safeUrl('/api/v1/notifications/unsubscribe?token=deadbeef&type=all')).toContain('type=all');
    expect(safeUrl('/api/v1/notifications/unsubscribe?token=deadbeef&type=all')).not.toContain('deadbeef');
    expect(safeUrl('/health')).toBe('/health');
  });
});
