/**
 * Spreadsheet formula injection (CWE-1236, ASVS 5.0 1.2.10): a text cell starting with `=`, `+`, `-`, `@`, tab,
 * carriage return or NUL is prefixed with `'` so spreadsheet programs show it as text. Numbers are left alone.
 */
export function neutralizeCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  return /^[=+\-@\t\r\0]/.test(value) ? `'${value}` : value;
}

/** UTF-8 byte order mark, so spreadsheet programs read the file as UTF-8. */
export const UTF8_BOM = '\uFEFF';

/** The separator a CSV file uses, read from its header line: `;` when it has more semicolons than commas. */
export function detectSeparator(headerLine: string): ',' | ';' {
  const count = (ch: string): number => headerLine.split(ch).length - 1;
  return count(';') > count(',') ? ';' : ',';
}

/** Strict UTF-8 decoding (invalid byte sequences throw) without the byte order mark. */
export function decodeUtf8(buffer: Buffer): string {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  return text.startsWith(UTF8_BOM) ? text.slice(1) : text;
}
