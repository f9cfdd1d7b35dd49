import { Readable } from 'node:stream';
import { csvCell, csvStream, xlsxCell } from './report-writers';
import type { ReportColumn } from './report-types';

const text: ReportColumn = { name: 't', kind: 'text' };
const num: ReportColumn = { name: 'n', kind: 'number' };
const date: ReportColumn = { name: 'd', kind: 'date' };
const bool: ReportColumn = { name: 'b', kind: 'boolean' };

describe('report cells', () => {
  it('CSV: text neutralized against formulas, numbers as digits, instants ISO UTC, booleans as words, null empty', () => {
    for (const formula of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])
      expect(csvCell(text, formula)).toBe(`'${formula}`);
    expect(csvCell(text, 'plain')).toBe('plain');
    expect(csvCell(num, -5)).toBe('-5');
    expect(csvCell(num, '42')).toBe('42');
    expect(csvCell(date, new Date('2026-01-02T03:04:05.006Z'))).toBe('2026-01-02T03:04:05.006Z');
    expect(csvCell(bool, true)).toBe('true');
    expect(csvCell(bool, false)).toBe('false');
    expect(csvCell(text, null)).toBe('');
    expect(csvCell(date, undefined)).toBe('');
  });

  it('XLSX: dates as dates, numbers as numbers, the rest as strings (never a formula)', () => {
    expect(xlsxCell(date, '2026-01-02T03:04:05.006Z')).toEqual(new Date('2026-01-02T03:04:05.006Z'));
    expect(xlsxCell(num, '7')).toBe(7);
    expect(xlsxCell(text, '=cmd')).toBe('=cmd');
    expect(xlsxCell(bool, true)).toBe('true');
    expect(xlsxCell(text, null)).toBeNull();
  });

  it('CSV stream: BOM, header first, CRLF, quoting only where needed', async () => {
    const rows = Readable.from(
      [
        { t: 'a,b', n: 1 },
        { t: 'say "hi"\nnow', n: 2 },
      ],
      { objectMode: true },
    );
    const chunks: Buffer[] = [];
    for await (const c of csvStream(rows, [text, num], 'comma')) chunks.push(Buffer.from(c as Buffer));
    expect(Buffer.concat(chunks).toString('utf8')).toBe('\uFEFFt,n\r\n"a,b",1\r\n"say ""hi""\nnow",2\r\n');
  });
});
