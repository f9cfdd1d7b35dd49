import { decodeUtf8, detectSeparator, neutralizeCell } from './csv';

describe('neutralizeCell', () => {
  it.each([
    ['=SUM(A1:A2)', "'=SUM(A1:A2)"],
    ['+1', "'+1"],
    ['-2', "'-2"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['\0x', "'\0x"],
    ['Ana', 'Ana'],
    ['a=b', 'a=b'],
    ['', ''],
  ])('%j -> %j', (input, expected) => {
    expect(neutralizeCell(input)).toBe(expected);
  });

  it('leaves numbers, booleans and empty values as they are', () => {
    expect(neutralizeCell(-3)).toBe('-3');
    expect(neutralizeCell(true)).toBe('true');
    expect(neutralizeCell(null)).toBe('');
    expect(neutralizeCell(undefined)).toBe('');
  });
});

describe('detectSeparator', () => {
  it('reads the header line', () => {
    expect(detectSeparator('email,name,role,cohort')).toBe(',');
    expect(detectSeparator('email;name;role;cohort')).toBe(';');
    expect(detectSeparator('email')).toBe(',');
  });
});

describe('decodeUtf8', () => {
  it('drops a byte order mark and refuses invalid UTF-8', () => {
    expect(decodeUtf8(Buffer.from('\uFEFFemail', 'utf8'))).toBe('email');
    expect(decodeUtf8(Buffer.from('José', 'utf8'))).toBe('José');
    expect(() => decodeUtf8(Buffer.from([0x65, 0xff, 0xfe]))).toThrow();
  });
});
