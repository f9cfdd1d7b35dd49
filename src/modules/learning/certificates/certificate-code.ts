/** Verification code alphabet: no 0/O, 1/I/L, so a code read aloud or retyped cannot be confused. */
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const CODE_PREFIX = { course: 'CRS', program: 'PRG' } as const;
export type CertificateType = keyof typeof CODE_PREFIX;

/** `<PREFIX>-XXXX-XXXX` from 8 characters drawn by `draw` (31^8, about 8.5e11 codes per prefix). */
export function formatCode(type: CertificateType, draw: (alphabet: string, length: number) => string): string {
  const body = draw(CODE_ALPHABET, 8);
  return `${CODE_PREFIX[type]}-${body.slice(0, 4)}-${body.slice(4)}`;
}

/** What the public verification looks up: upper case, spaces removed (legacy codes keep their own shape). */
export function normalizeCode(raw: string): string {
  return raw.replace(/\s+/g, '').toUpperCase();
}
