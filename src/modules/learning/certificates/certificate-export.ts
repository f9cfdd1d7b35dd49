import { escapeLiteral } from 'pg';
import { Transform } from 'node:stream';
import { neutralizeCell, UTF8_BOM } from '@/core/csv/csv';
import type { Locale } from '@/core/mail/mail-template';
import type { CertificateType } from './certificate-code';

/** At most this many rows in one export; more is 413 `export_too_large` (interface-v1 section 8). */
export const EXPORT_MAX_ROWS = 10_000;

export const EXPORT_SEPARATORS = { comma: ',', semicolon: ';' } as const;
export type ExportSeparator = keyof typeof EXPORT_SEPARATORS;

export type CertificateStatus = 'active' | 'revoked' | 'replaced';

/** One row of the export as PostgreSQL streams it (raw columns, no entity). */
export interface ExportRow {
  code: string;
  status: CertificateStatus;
  type: CertificateType;
  /** Null once the holder's account was erased without keeping names (an empty cell). */
  holder_name: string | null;
  user_id: string;
  title: string;
  course_id: string | null;
  path_id: string | null;
  cohort_id: string | null;
  issued_at: Date;
  revoked_at: Date | null;
  revoke_reason: string | null;
  replaced_by_code: string | null;
}

const COLUMNS = [
  'code',
  'status',
  'type',
  'holder_name',
  'user_id',
  'title',
  'course_id',
  'path_id',
  'cohort_id',
  'issued_at',
  'revoked_at',
  'revoke_reason',
  'replaced_by_code',
] as const satisfies readonly (keyof ExportRow)[];

const HEADERS: Record<Locale, Record<(typeof COLUMNS)[number], string>> = {
  en: {
    code: 'Code',
    status: 'Status',
    type: 'Type',
    holder_name: 'Holder',
    user_id: 'Holder ID',
    title: 'Title',
    course_id: 'Course ID',
    path_id: 'Program ID',
    cohort_id: 'Cohort ID',
    issued_at: 'Issued at (UTC)',
    revoked_at: 'Revoked at (UTC)',
    revoke_reason: 'Revocation reason',
    replaced_by_code: 'Replaced by',
  },
  es: {
    code: 'Código',
    status: 'Estado',
    type: 'Tipo',
    holder_name: 'Titular',
    user_id: 'ID del titular',
    title: 'Título',
    course_id: 'ID del curso',
    path_id: 'ID del programa',
    cohort_id: 'ID de la cohorte',
    issued_at: 'Emitido (UTC)',
    revoked_at: 'Revocado (UTC)',
    revoke_reason: 'Motivo de la revocación',
    replaced_by_code: 'Reemplazado por',
  },
};

const STATUS_WORDS: Record<Locale, Record<CertificateStatus, string>> = {
  en: { active: 'active', revoked: 'revoked', replaced: 'replaced' },
  es: { active: 'activo', revoked: 'revocado', replaced: 'reemplazado' },
};

const TYPE_WORDS: Record<Locale, Record<CertificateType, string>> = {
  en: { course: 'course', program: 'program' },
  es: { course: 'curso', program: 'programa' },
};

/** The header line's cells in the export's language. */
export function exportHeaders(lang: Locale): string[] {
  return COLUMNS.map((column) => HEADERS[lang][column]);
}

/**
 * One row's cells: enums in the export's language, times as ISO 8601 UTC, every text cell neutralized against
 * spreadsheet formulas (a holder named `=cmd` becomes `'=cmd`). Quoting is left to the CSV writer.
 */
export function exportCells(row: ExportRow, lang: Locale): string[] {
  return COLUMNS.map((column) => {
    switch (column) {
      case 'status':
        return STATUS_WORDS[lang][row.status];
      case 'type':
        return TYPE_WORDS[lang][row.type];
      case 'issued_at':
      case 'revoked_at':
        return row[column] ? new Date(row[column]).toISOString() : '';
      default:
        return neutralizeCell(row[column]);
    }
  });
}

/** `neutralizeCell` in SQL: the same prefix for the same first characters (text never holds NUL); '' is NULL. */
function neutralizedSql(expr: string): string {
  return `CASE WHEN left(${expr}, 1) IN ('=', '+', '-', '@', E'\\t', E'\\r') THEN '''' || ${expr} ELSE nullif(${expr}, '') END`;
}

/** `Date.prototype.toISOString` in SQL (UTC, milliseconds truncated as the driver's Date does). */
function isoSql(expr: string): string {
  return `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

function wordsSql(expr: string, words: Record<string, string>): string {
  const cases = Object.entries(words).map(
    ([value, word]) => `WHEN ${escapeLiteral(value)} THEN ${escapeLiteral(word)}`,
  );
  return `CASE ${expr} ${cases.join(' ')} END`;
}

/**
 * `exportCells` as a SELECT list over `issued_certificates c` and its replacement `r`, for PostgreSQL's own CSV
 * writer (`COPY ... WITH (FORMAT csv)`): each column is the cell `exportCells` gives, and every empty cell is NULL,
 * which COPY writes unquoted as the CSV writer of the API did ('' would be written `""`). COPY quotes a cell holding
 * the separator, a quote, CR or LF, exactly the cells `csv-stringify` quoted with our options; its record ends are
 * LF, made CRLF by `crlfRecords`. test/certificate-export-bytes.e2e-spec.ts compares both writers byte for byte.
 */
export function exportSelectSql(lang: Locale): string {
  const cells: Record<(typeof COLUMNS)[number], string> = {
    code: neutralizedSql('c.code'),
    status: wordsSql('c.status', STATUS_WORDS[lang]),
    type: wordsSql('c.type', TYPE_WORDS[lang]),
    holder_name: neutralizedSql('c.holder_name'),
    // Ids are UUIDs: never empty, never starting with a formula character.
    user_id: 'c.user_id::text',
    title: neutralizedSql('c.title'),
    course_id: 'c.course_id::text',
    path_id: 'c.path_id::text',
    cohort_id: 'c.cohort_id::text',
    issued_at: isoSql('c.issued_at'),
    revoked_at: isoSql('c.revoked_at'),
    revoke_reason: neutralizedSql('c.revoke_reason'),
    replaced_by_code: neutralizedSql('r.code'),
  };
  return COLUMNS.map((column) => cells[column]).join(', ');
}

/** The first bytes of an export: the byte order mark and the header line (its cells never need quoting). */
export function exportPreamble(lang: Locale, separator: string): string {
  return `${UTF8_BOM}${exportHeaders(lang).join(separator)}\r\n`;
}

/**
 * COPY's CSV ends records with LF; the export's records end with CRLF (RFC 4180). Line breaks inside a quoted cell
 * are data and stay as they are: the quote state is followed across chunks (a doubled quote toggles twice).
 */
export function crlfRecords(): Transform {
  let quoted = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const parts: Buffer[] = [];
      let start = 0;
      let i = 0;
      let nextQuote = chunk.indexOf(QUOTE, 0);
      while (i < chunk.length) {
        if (quoted) {
          if (nextQuote === -1) break;
          quoted = false;
          i = nextQuote + 1;
          nextQuote = chunk.indexOf(QUOTE, i);
          continue;
        }
        const lf = chunk.indexOf(LF, i);
        if (nextQuote !== -1 && (lf === -1 || nextQuote < lf)) {
          quoted = true;
          i = nextQuote + 1;
          nextQuote = chunk.indexOf(QUOTE, i);
          continue;
        }
        if (lf === -1) break;
        parts.push(chunk.subarray(start, lf), CRLF);
        start = i = lf + 1;
      }
      parts.push(chunk.subarray(start));
      done(null, Buffer.concat(parts));
    },
  });
}

const QUOTE = 0x22;
const LF = 0x0a;
const CRLF = Buffer.from('\r\n');

/**
 * The language of an export: the explicit `lang`, else the best supported language of the browser's
 * `Accept-Language` (RFC 9110 12.5.4: highest weight first, `q=0` refused, `es-MX` counts as `es`, `*` as the
 * organization's), else the organization's locale.
 */
export function exportLanguage(
  lang: Locale | undefined,
  acceptLanguage: string | undefined,
  orgLocale: Locale,
): Locale {
  if (lang) return lang;
  return preferredLanguage(acceptLanguage, orgLocale) ?? orgLocale;
}

export function preferredLanguage(header: string | undefined, wildcard: Locale): Locale | null {
  if (!header) return null;
  let best: { lang: Locale; q: number } | null = null;
  for (const part of header.split(',')) {
    const [tag, ...params] = part.trim().split(';');
    const range = tag.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (!range || q <= 0 || q > 1) continue;
    const primary = range === '*' ? wildcard : range.split('-')[0];
    if (primary !== 'es' && primary !== 'en') continue;
    // Equal weights keep the order the browser listed them in.
    if (!best || q > best.q) best = { lang: primary, q };
  }
  return best?.lang ?? null;
}
