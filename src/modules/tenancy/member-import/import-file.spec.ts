import { IMPORT_MAX_ROWS, readImportFile } from './import-file';

const read = (text: string | Buffer) => readImportFile(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'));

describe('readImportFile', () => {
  it('reads comma and semicolon files, with or without BOM, header in any order', () => {
    const rows = [
      read('email,name,role,cohort\na@x.test,Ana,teacher,Grupo A\n'),
      read('\uFEFFemail;name;role;cohort\r\na@x.test;Ana;teacher;Grupo A\r\n'),
      read('cohort,role,name,email\nGrupo A,teacher,Ana,a@x.test\n'),
    ];
    for (const r of rows)
      expect(r).toEqual([{ row: 1, email: 'a@x.test', name: 'Ana', role: 'teacher', cohort: 'Grupo A' }]);
  });

  it('role, name and cohort are optional; empty cells are null; quoted cells keep their separators', () => {
    expect(read('email\nb@x.test\n')).toEqual([{ row: 1, email: 'b@x.test', name: null, role: null, cohort: null }]);
    expect(read('email,name\n"c@x.test","López, María"\n,\n')).toEqual([
      { row: 1, email: 'c@x.test', name: 'López, María', role: null, cohort: null },
      { row: 2, email: null, name: null, role: null, cohort: null },
    ]);
  });

  it.each([
    ['', 'empty'],
    ['name,role\nAna,student\n', 'no email column'],
    ['email,mail\na@x.test,b\n', 'unknown column'],
    ['email,email\na@x.test,b\n', 'duplicate column'],
    ['email\n', 'no rows'],
    ['email,name\n"a@x.test,Ana\n', 'unterminated quote'],
  ])('refuses %j (%s) with 422 invalid_csv', (text) => {
    expect(() => read(text)).toThrow(expect.objectContaining({ status: 422, code: 'invalid_csv' }));
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(() => read(Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0xff, 0xfe]))).toThrow(
      expect.objectContaining({ code: 'invalid_csv' }),
    );
  });

  it(`accepts exactly ${IMPORT_MAX_ROWS} rows and refuses one more with 413 import_too_large`, () => {
    const body = (n: number) => 'email\n' + Array.from({ length: n }, (_, i) => `p${i}@x.test`).join('\n') + '\n';
    expect(read(body(IMPORT_MAX_ROWS))).toHaveLength(IMPORT_MAX_ROWS);
    expect(() => read(body(IMPORT_MAX_ROWS + 1))).toThrow(
      expect.objectContaining({ status: 413, code: 'import_too_large' }),
    );
  });
});
