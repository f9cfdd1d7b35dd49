import { PassThrough, type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type ExcelJS from 'exceljs';
import { neutralizeCell } from '@/core/csv/csv';
import type { ReportColumn, ReportRow, ReportSeparator, ReportType } from './report-types';

const SEPARATORS: Record<ReportSeparator, string> = { comma: ',', semicolon: ';' };

const iso = (value: unknown): string => (value ? new Date(value as string | Date).toISOString() : '');

/** One CSV cell: instants as ISO 8601 UTC, numbers as digits, booleans as `true`/`false`, text neutralized. */
export function csvCell(column: ReportColumn, value: ReportRow[string] | undefined): string {
  if (value === null || value === undefined) return '';
  switch (column.kind) {
    case 'date':
      return iso(value);
    case 'number':
      return String(Number(value));
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return neutralizeCell(String(value));
  }
}

/**
 * The rows as CSV bytes: UTF-8 with BOM, RFC 4180 quoting (CRLF between records; a cell holding the separator, a
 * quote or a line break is quoted), the header line first also when no row matches. Object-mode streaming all
 * the way from the cursor: memory does not grow with the number of rows.
 */
export function csvStream(rows: Readable, columns: readonly ReportColumn[], separator: ReportSeparator): Readable {
  const toCells = new Transform({
    objectMode: true,
    transform(row: ReportRow, _encoding, done) {
      done(
        null,
        columns.map((c) => csvCell(c, row[c.name])),
      );
    },
  });
  toCells.push(columns.map((c) => c.name));
  const csv = stringify({
    bom: true,
    delimiter: SEPARATORS[separator],
    record_delimiter: '\r\n',
    quoted_match: /[\r\n]/,
  });
  const out = new PassThrough();
  pipeline(rows, toCells, csv, out).catch((err: unknown) => out.destroy(err as Error));
  return out;
}

/** One XLSX cell: instants as dates, numbers as numbers, everything else as a string (never a formula). */
export function xlsxCell(column: ReportColumn, value: ReportRow[string] | undefined): ExcelJS.CellValue {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case 'date':
      return new Date(value as string | Date);
    case 'number':
      return Number(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return String(value);
  }
}

/**
 * The rows as an XLSX workbook, written by exceljs's streaming writer (rows are committed as they come, so the
 * sheet is never held in memory; inline strings, no shared-string table): one sheet named after the type, a bold
 * frozen header row. Returns the byte stream and a promise settled when every row was written.
 */
export function xlsxStream(
  rows: Readable,
  columns: readonly ReportColumn[],
  type: ReportType,
): { stream: Readable; done: Promise<void> } {
  const out = new PassThrough();
  // Loaded by the first XLSX report, not at start: exceljs and its zip stack are ~400 modules.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { stream: xlsx } = require('exceljs') as typeof ExcelJS;
  const workbook = new xlsx.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(type, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = columns.map((c) => ({
    key: c.name,
    width: c.kind === 'date' ? 24 : Math.max(12, c.name.length + 2),
    style: c.kind === 'date' ? { numFmt: 'yyyy-mm-dd hh:mm:ss' } : {},
  }));
  const header = sheet.addRow(columns.map((c) => c.name));
  header.font = { bold: true };
  header.commit();
  const done = (async (): Promise<void> => {
    try {
      let n = 0;
      for await (const row of rows as AsyncIterable<ReportRow>) {
        sheet.addRow(columns.map((c) => xlsxCell(c, row[c.name]))).commit();
        // exceljs applies no backpressure: rows go into a buffer that the zip's deflate (on libuv's thread pool)
        // empties. A for-await over the cursor only yields to microtasks, which would starve those callbacks and
        // let the buffer grow with the report, so yield a full turn of the event loop every 100 rows, and wait
        // for the output to drain when the file is the slower side.
        if (++n % 100 === 0) {
          await new Promise((resolve) => setImmediate(resolve));
          if (out.writableNeedDrain) await new Promise((resolve) => out.once('drain', resolve));
        }
      }
      sheet.commit();
      await workbook.commit();
    } catch (err) {
      out.destroy(err as Error);
      throw err;
    }
  })();
  return { stream: out, done };
}
