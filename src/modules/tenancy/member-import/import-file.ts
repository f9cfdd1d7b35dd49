import { parse } from 'csv-parse/sync';
import { decodeUtf8, detectSeparator } from '@/core/csv/csv';
import { ApiError } from '@/core/http/api-error';

export const IMPORT_MAX_ROWS = 10_000;
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
const COLUMNS = ['email', 'name', 'role', 'cohort'] as const;
type Column = (typeof COLUMNS)[number];

export interface ImportRow {
  row: number;
  email: string | null;
  name: string | null;
  role: string | null;
  cohort: string | null;
}

const invalid = (message: string): ApiError => ApiError.unprocessable('invalid_csv', message, 'file');

/**
 * Reads an uploaded member list: UTF-8 with or without BOM, `,` or `;` separated, a header naming `email` and
 * optionally `name`, `role`, `cohort` (any order). Checks the shape only: each row's content is judged when it
 * is processed, so a bad row never stops the others.
 */
export function readImportFile(buffer: Buffer): ImportRow[] {
  if (buffer.length > IMPORT_MAX_BYTES) throw new ApiError('import_too_large', 'The file is larger than 5 MiB.');
  let text: string;
  try {
    text = decodeUtf8(buffer);
  } catch {
    throw invalid('The file is not UTF-8 text.');
  }
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  let records: string[][];
  try {
    records = parse(text, {
      delimiter: detectSeparator(firstLine),
      relax_column_count: true,
      // A quote inside an unquoted cell (`=HYPERLINK("...")`) is read literally: one odd row must not reject the file.
      relax_quotes: true,
      skip_empty_lines: true,
      trim: true,
    });
  } catch (err) {
    throw invalid(`The file is not valid CSV: ${(err as Error).message.split('\n')[0]}`);
  }
  const [header, ...rows] = records;
  if (!header) throw invalid('The file is empty.');
  const columns = header.map((h) => h.trim().toLowerCase());
  const unknown = columns.filter((c) => !(COLUMNS as readonly string[]).includes(c));
  if (unknown.length > 0 || !columns.includes('email') || new Set(columns).size !== columns.length) {
    throw invalid(
      `The header must name the columns email, name, role, cohort (email required, each once); got: ${header.join(', ')}.`,
    );
  }
  if (rows.length === 0) throw invalid('The file has a header but no rows.');
  if (rows.length > IMPORT_MAX_ROWS)
    throw new ApiError('import_too_large', `The file has more than ${IMPORT_MAX_ROWS} rows.`);
  const index = (c: Column): number => columns.indexOf(c);
  const cell = (r: string[], c: Column): string | null => {
    const i = index(c);
    const v = i >= 0 ? r[i]?.trim() : undefined;
    return v ? v : null;
  };
  return rows.map((r, i) => ({
    row: i + 1,
    email: cell(r, 'email'),
    name: cell(r, 'name'),
    role: cell(r, 'role'),
    cohort: cell(r, 'cohort'),
  }));
}
