import type { AppConfig } from '@/config/app-config';
import { CryptoService } from './crypto.service';

const config = { authSecret: 'a'.repeat(40), dataEncryptionKey: Buffer.alloc(32, 3) } as AppConfig;

describe('CryptoService', () => {
  const crypto = new CryptoService(config);

  it('random tokens carry 256 bits by default and do not repeat', () => {
    const a = crypto.randomToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(Array.from({ length: 200 }, () => crypto.randomToken())).size).toBe(200);
  });

  it('draws digit codes of the requested length over all digits', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const code = crypto.randomDigits(6);
      expect(code).toMatch(/^\d{6}$/);
      for (const ch of code) seen.add(ch);
    }
    expect(seen.size).toBe(10);
  });

  it('sha256 is the hex digest', () => {
    expect(crypto.sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('keyed hashes differ by purpose and by secret', () => {
    const other = new CryptoService({ ...config, authSecret: 'b'.repeat(40) });
    expect(crypto.keyedHash('ip', '1.2.3.4')).not.toBe(crypto.keyedHash('otp', '1.2.3.4'));
    expect(crypto.keyedHash('ip', '1.2.3.4')).not.toBe(other.keyedHash('ip', '1.2.3.4'));
    expect(crypto.keyedHash('ip', '1.2.3.4')).toBe(crypto.keyedHash('ip', '1.2.3.4'));
  });

  it('encrypts with a fresh IV and decrypts back', () => {
    const a = crypto.encrypt('JBSWY3DPEHPK3PXP');
    const b = crypto.encrypt('JBSWY3DPEHPK3PXP');
    expect(a).not.toBe(b);
    expect(a).not.toContain('JBSWY3DPEHPK3PXP');
    expect(crypto.decrypt(a)).toBe('JBSWY3DPEHPK3PXP');
  });

  it('refuses tampered ciphertext and foreign formats', () => {
    const sealed = crypto.encrypt('secret');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('SECRET').toString('base64url');
    expect(() => crypto.decrypt(parts.join('.'))).toThrow();
    expect(() => crypto.decrypt('plain')).toThrow(/Unrecognized/);
  });

  it('compares secrets in constant time, including different lengths', () => {
    expect(crypto.safeEqual('123456', '123456')).toBe(true);
    expect(crypto.safeEqual('123456', '123457')).toBe(false);
    expect(crypto.safeEqual('123456', '1234567')).toBe(false);
  });
});
