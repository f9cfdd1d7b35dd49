import {
  compileScimFilter,
  normalizeAttributePath,
  parseScimFilter,
  type ScimAttributes,
  toBoolean,
} from './scim-filter';
import { ScimError } from './scim-errors';

const ATTRS: ScimAttributes = {
  username: { sql: 'u.user_name', type: 'string', eq: (p) => `u.user_name = ${p}` },
  externalid: { sql: 'u.external_id', type: 'caseExactString' },
  active: { sql: 'u.active', type: 'boolean' },
  'meta.created': { sql: 'u.created_at', type: 'dateTime' },
  'emails.value': { sql: 'u.email', type: 'string' },
  'emails.type': { sql: `'work'`, type: 'string' },
  'enterprise.department': { sql: `(u.directory->>'department')`, type: 'string' },
  'members.value': {
    sql: 'm.user_id::text',
    type: 'string',
    exists: (c) => `EXISTS (SELECT 1 FROM members m WHERE ${c})`,
  },
};

function compile(filter: string): { sql: string; params: unknown[] } {
  const params: unknown[] = ['org'];
  const sql = compileScimFilter(parseScimFilter(filter), ATTRS, params);
  return { sql, params };
}

function scimTypeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof ScimError ? err.scimType : 'not a ScimError';
  }
  return undefined;
}

describe('SCIM filters to SQL', () => {
  it('uses the index form of eq, lower-cases case-insensitive values, keeps caseExact ones', () => {
    expect(compile('userName eq "Ana@X.org"')).toEqual({ sql: 'u.user_name = $2', params: ['org', 'ana@x.org'] });
    expect(compile('externalId eq "AbC"')).toEqual({ sql: 'u.external_id = $2', params: ['org', 'AbC'] });
  });

  it('takes attribute names and operators in any case, with or without the schema URN', () => {
    expect(compile('USERNAME EQ "a"').sql).toBe('u.user_name = $2');
    expect(compile('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a"').sql).toBe('u.user_name = $2');
    expect(normalizeAttributePath('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department')).toBe(
      'enterprise.department',
    );
    expect(normalizeAttributePath('members')).toBe('members.value');
  });

  it('compiles co / sw / ew with escaped LIKE patterns', () => {
    expect(compile('userName co "50%_off"')).toEqual({
      sql: `lower(u.user_name) LIKE $2 ESCAPE '\\'`,
      params: ['org', '%50\\%\\_off%'],
    });
    expect(compile('userName sw "a"').params[1]).toBe('a%');
    expect(compile('userName ew "a"').params[1]).toBe('%a');
  });

  it('compiles and, or, not, parentheses and value paths', () => {
    expect(compile('(userName eq "a" or userName eq "b") and not (active eq false)').sql).toBe(
      '((u.user_name = $2 OR u.user_name = $3) AND (NOT coalesce(u.active = $4::boolean, false)))',
    );
    expect(compile('emails[type eq "work" and value co "@x"]').sql).toBe(
      `(lower('work') = $2 AND lower(u.email) LIKE $3 ESCAPE '\\')`,
    );
    expect(compile('members[value eq "id-1"]').sql).toBe(
      'EXISTS (SELECT 1 FROM members m WHERE lower(m.user_id::text) = $2)',
    );
    expect(compile('members eq "id-1"').sql).toBe('EXISTS (SELECT 1 FROM members m WHERE lower(m.user_id::text) = $2)');
  });

  it('compiles pr, booleans as strings (Entra), dates and comparisons', () => {
    expect(compile('externalId pr').sql).toBe(`coalesce(u.external_id, '') <> ''`);
    expect(compile('active eq "False"').params[1]).toBe(false);
    expect(compile('meta.created ge "2026-01-01T00:00:00Z"')).toEqual({
      sql: 'u.created_at >= $2::timestamptz',
      params: ['org', '2026-01-01T00:00:00.000Z'],
    });
    expect(compile('userName gt "m"').sql).toBe('lower(u.user_name) COLLATE "C" > $2');
    expect(compile('externalId eq null').sql).toBe('u.external_id IS NULL');
  });

  it('never puts a value into the SQL text', () => {
    const { sql, params } = compile(`userName eq "x' OR '1'='1" or externalId eq "'; DROP TABLE users; --"`);
    expect(sql).not.toContain('DROP');
    expect(sql).not.toContain("'1'");
    expect(params).toHaveLength(3);
  });

  it('answers invalidFilter for unsupported attributes, operators that do not apply, bad syntax and bad values', () => {
    expect(scimTypeOf(() => compile('password eq "x"'))).toBe('invalidFilter');
    expect(scimTypeOf(() => compile('active co "t"'))).toBe('invalidFilter');
    expect(scimTypeOf(() => compile('active eq "maybe"'))).toBe('invalidFilter');
    expect(scimTypeOf(() => compile('meta.created gt "soon"'))).toBe('invalidFilter');
    expect(scimTypeOf(() => compile('userName eq true'))).toBe('invalidFilter');
    expect(scimTypeOf(() => compile('userName eq'))).toBe('invalidFilter');
    expect(scimTypeOf(() => compile('userName eq "a") or (1 eq 1'))).toBe('invalidFilter');
    expect(scimTypeOf(() => compile(`userName eq "${'a'.repeat(3000)}"`))).toBe('invalidFilter');
  });

  it('reads booleans the way Entra sends them', () => {
    expect([toBoolean(true), toBoolean('True'), toBoolean('false'), toBoolean(' FALSE '), toBoolean('no')]).toEqual([
      true,
      true,
      false,
      false,
      null,
    ]);
  });
});
