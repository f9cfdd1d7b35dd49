import { exportCells, exportHeaders, exportLanguage, type ExportRow, preferredLanguage } from './certificate-export';

const row: ExportRow = {
  code: 'CRS-AAAA-BBBB',
  status: 'replaced',
  type: 'program',
  holder_name: '=SUM(A1:A2)',
  user_id: '3f2c1a9e-1111-4222-8333-444455556666',
  title: '@import',
  course_id: null,
  path_id: '4f2c1a9e-1111-4222-8333-444455556666',
  cohort_id: null,
  issued_at: new Date('2026-03-01T09:30:00Z'),
  revoked_at: new Date('2026-03-02T10:00:00Z'),
  revoke_reason: '-1 reason',
  replaced_by_code: 'PRG-CCCC-DDDD',
};

describe('certificate export', () => {
  it('has its header in English and in Spanish, one cell per column', () => {
    expect(exportHeaders('en')).toEqual([
      'Code',
      'Status',
      'Type',
      'Holder',
      'Holder ID',
      'Title',
      'Course ID',
      'Program ID',
      'Cohort ID',
      'Issued at (UTC)',
      'Revoked at (UTC)',
      'Revocation reason',
      'Replaced by',
    ]);
    expect(exportHeaders('es')).toEqual([
      'Código',
      'Estado',
      'Tipo',
      'Titular',
      'ID del titular',
      'Título',
      'ID del curso',
      'ID del programa',
      'ID de la cohorte',
      'Emitido (UTC)',
      'Revocado (UTC)',
      'Motivo de la revocación',
      'Reemplazado por',
    ]);
  });

  it('translates status and type, writes ISO times, empties nulls and neutralizes formula cells', () => {
    expect(exportCells(row, 'es')).toEqual([
      'CRS-AAAA-BBBB',
      'reemplazado',
      'programa',
      "'=SUM(A1:A2)",
      row.user_id,
      "'@import",
      '',
      row.path_id,
      '',
      '2026-03-01T09:30:00.000Z',
      '2026-03-02T10:00:00.000Z',
      "'-1 reason",
      'PRG-CCCC-DDDD',
    ]);
    const en = exportCells(
      { ...row, status: 'active', type: 'course', revoked_at: null, holder_name: '+34 600' },
      'en',
    );
    expect(en.slice(1, 4)).toEqual(['active', 'course', "'+34 600"]);
    expect(en[10]).toBe('');
    for (const status of ['active', 'revoked', 'replaced'] as const) {
      expect(exportCells({ ...row, status }, 'es')[1]).toBe(
        { active: 'activo', revoked: 'revocado', replaced: 'reemplazado' }[status],
      );
    }
  });

  it('chooses the language: lang, else Accept-Language, else the organization', () => {
    expect(exportLanguage('en', 'es-ES,es;q=0.9', 'es')).toBe('en');
    expect(exportLanguage('es', 'en', 'en')).toBe('es');
    expect(exportLanguage(undefined, 'en-US,en;q=0.9', 'es')).toBe('en');
    expect(exportLanguage(undefined, 'fr-CH, fr;q=0.9, de;q=0.7', 'en')).toBe('en');
    expect(exportLanguage(undefined, undefined, 'es')).toBe('es');
    expect(exportLanguage(undefined, '', 'en')).toBe('en');
  });

  it('reads Accept-Language by weight (RFC 9110): highest q wins, ties keep their order, q=0 refuses', () => {
    expect(preferredLanguage('es;q=0.3, en;q=0.8', 'es')).toBe('en');
    expect(preferredLanguage('en;q=0.5, es;q=0.5', 'es')).toBe('en');
    expect(preferredLanguage('es-MX, en', 'en')).toBe('es');
    expect(preferredLanguage('EN-gb', 'es')).toBe('en');
    expect(preferredLanguage('en;q=0, es;q=0.1', 'en')).toBe('es');
    expect(preferredLanguage('en;q=0', 'es')).toBeNull();
    expect(preferredLanguage('*', 'en')).toBe('en');
    expect(preferredLanguage('de, *;q=0.5', 'es')).toBe('es');
    expect(preferredLanguage('pt-BR, fr', 'es')).toBeNull();
    expect(preferredLanguage('en;q=2, es;q=abc', 'en')).toBe('en');
    expect(preferredLanguage('english, spanish', 'es')).toBeNull();
  });
});
