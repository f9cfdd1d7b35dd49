import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '@/config/load-config';
import { challengeOf } from './relying-party';

const answer = (clientData: unknown): { response: { clientDataJSON: string } } => ({
  response: {
    clientDataJSON: Buffer.from(typeof clientData === 'string' ? clientData : JSON.stringify(clientData)).toString(
      'base64url',
    ),
  },
});

describe('challengeOf (the challenge an answer names)', () => {
  it('reads the challenge of clientDataJSON', () => {
    expect(challengeOf(answer({ type: 'webauthn.get', challenge: 'abc_-123', origin: 'https://x' }))).toBe('abc_-123');
  });

  it.each([
    ['not JSON', 'not json'],
    ['null', null],
    ['no challenge', { type: 'webauthn.get' }],
    ['a number', { challenge: 42 }],
    ['empty', { challenge: '' }],
    ['too long', { challenge: 'a'.repeat(129) }],
  ])('answers null for %s', (_name, data) => {
    expect(challengeOf(answer(data))).toBeNull();
  });
});

describe('the relying party settings', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'rp-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('defaults to the host and origin of WEB_URL, "Learning Platform", enabled', () => {
    const c = loadConfig({ DATA_DIR: dataDir, WEB_URL: 'https://app.example.org/' });
    expect(c.passkeys).toEqual({
      enabled: true,
      rpId: 'app.example.org',
      rpName: 'Learning Platform',
      origins: ['https://app.example.org'],
    });
  });

  it('takes the registrable domain, a name and more origins (as origins, without duplicates)', () => {
    const c = loadConfig({
      DATA_DIR: dataDir,
      WEB_URL: 'https://app.example.org',
      WEBAUTHN_RP_ID: 'example.org',
      WEBAUTHN_RP_NAME: 'Campus',
      WEBAUTHN_ORIGINS: 'https://learn.example.org/, https://app.example.org',
      PASSKEYS_ENABLED: 'false',
    });
    expect(c.passkeys).toEqual({
      enabled: false,
      rpId: 'example.org',
      rpName: 'Campus',
      origins: ['https://app.example.org', 'https://learn.example.org'],
    });
  });

  it.each([
    ['WEBAUTHN_RP_ID', 'https://example.org'],
    ['WEBAUTHN_ORIGINS', 'example.org'],
    ['PASSKEYS_ENABLED', 'maybe'],
  ])('refuses a bad %s', (variable, value) => {
    expect(() => loadConfig({ DATA_DIR: dataDir, [variable]: value })).toThrow(ConfigError);
  });
});
