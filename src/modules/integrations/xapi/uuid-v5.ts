import { createHash } from 'node:crypto';

/**
 * A name-based UUID, version 5 (RFC 9562 section 5.5: SHA-1 of the namespace's 16 bytes and the name's UTF-8,
 * version and variant bits set). Written here because the `uuid` package of this project (v14) is ESM-only and the
 * service runs as CommonJS on Node 20; checked against the RFC's test vector in `uuid-v5.spec.ts`.
 */
export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new Error('The namespace must be a UUID');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The URL namespace of RFC 9562 (appendix C). */
export const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';
