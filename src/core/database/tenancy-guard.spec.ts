import { orgAny, orgEq, orgParam, TENANCY_EXEMPTIONS, tenancyExempt } from './tenancy';
import { TenancyGuard, TenancyViolation } from './tenancy-guard';

const ORG = '0b6f4a52-4c1e-4f0a-9d59-2f4f7c1f3a10';
const OTHER = '6d8f2e1a-9b3c-4d5e-8f7a-1b2c3d4e5f60';
const TABLES = new Set(['cohorts', 'cohort_members', 'memberships']);

function guard(mode: 'refuse' | 'log' | 'off' = 'refuse'): TenancyGuard {
  return new TenancyGuard(TABLES, mode);
}

function refusal(g: TenancyGuard, sql: string, values: unknown[] = []): string | undefined {
  try {
    g.check(sql, values);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(TenancyViolation);
    return (err as TenancyViolation).reason;
  }
}

describe('organization predicate builder', () => {
  it('builds the predicate on a parameter position, with or without an alias', () => {
    expect(orgEq(1)).toBe('/*org*/ organization_id = $1');
    expect(orgEq(3, 'c')).toBe('/*org*/ c.organization_id = $3');
    expect(orgAny(2, 'w')).toBe('/*org*/ w.organization_id = ANY($2::uuid[])');
  });

  it('appends the organization id to a growing parameter list and points at it', () => {
    const params: unknown[] = ['x', 'y'];
    expect(orgParam(params, ORG, 'm')).toBe('/*org*/ m.organization_id = $3');
    expect(params).toEqual(['x', 'y', ORG]);
  });

  it('refuses a position or alias that would make broken SQL', () => {
    expect(() => orgEq(0)).toThrow('Not a parameter position');
    expect(() => orgEq(1.5)).toThrow('Not a parameter position');
    expect(() => orgEq(1, 'c; DROP TABLE x')).toThrow('Not a table alias');
  });
});

describe('tenancy guard', () => {
  it('refuses a statement on an organization table without the predicate', () => {
    expect(refusal(guard(), 'SELECT * FROM cohorts WHERE id = $1', [OTHER])).toBe(
      'no organization predicate on cohorts',
    );
    expect(refusal(guard(), 'UPDATE cohort_members SET role = $2 WHERE user_id = $1', [OTHER, 'x'])).toBe(
      'no organization predicate on cohort_members',
    );
    expect(refusal(guard(), 'DELETE FROM memberships WHERE user_id = $1', [OTHER])).toBe(
      'no organization predicate on memberships',
    );
    // A joined organization table counts, and so does the second table of a FROM list.
    expect(refusal(guard(), 'SELECT 1 FROM users u JOIN memberships m ON m.user_id = u.id')).toMatch(/memberships/);
    expect(refusal(guard(), 'SELECT 1 FROM users u, cohorts c WHERE c.id = u.id')).toMatch(/cohorts/);
  });

  it('refuses a hand-written organization predicate (only the builder writes it)', () => {
    expect(refusal(guard(), 'SELECT * FROM cohorts WHERE organization_id = $1 AND id = $2', [ORG, OTHER])).toMatch(
      /^hand-written organization predicate/,
    );
    expect(
      refusal(
        guard(),
        `SELECT * FROM cohorts c WHERE ${orgEq(1, 'c')} AND EXISTS (SELECT 1 FROM memberships m
        WHERE m.organization_id = $1)`,
        [ORG],
      ),
    ).toMatch(/^hand-written/);
    expect(refusal(guard(), 'SELECT 1 FROM jobs WHERE organization_id = ANY($1)', [[ORG]])).toMatch(/^hand-written/);
  });

  it('accepts the built predicate', () => {
    const g = guard();
    expect(refusal(g, `SELECT * FROM cohorts WHERE ${orgEq(1)} AND id = $2`, [ORG, OTHER])).toBeUndefined();
    const params: unknown[] = [OTHER];
    const sql = `SELECT c.id FROM cohorts c JOIN cohort_members m ON m.cohort_id = c.id
      AND m.organization_id = c.organization_id WHERE m.user_id = $1 AND ${orgParam(params, ORG, 'c')}`;
    expect(refusal(g, sql, params)).toBeUndefined();
    expect(refusal(g, `SELECT 1 FROM cohorts WHERE ${orgAny(1)}`, [[ORG, OTHER]])).toBeUndefined();
  });

  it('refuses a built predicate whose parameter is not an organization id', () => {
    const sql = `SELECT * FROM cohorts WHERE ${orgEq(2)} AND id = $1`;
    expect(refusal(guard(), sql, [ORG, 'Math'])).toBe(
      'parameter $2 of the organization predicate is not an organization id',
    );
    expect(refusal(guard(), sql, [ORG, null])).toMatch(/not an organization id/);
    expect(refusal(guard(), `SELECT 1 FROM cohorts WHERE ${orgAny(1)}`, [ORG])).toMatch(/not a list/);
    // An optional filter (`$n::uuid IS NULL OR ...`) takes null ("every organization of this person").
    const optional = `SELECT * FROM cohorts WHERE id = $1 AND ($2::uuid IS NULL OR ${orgEq(2)})`;
    expect(refusal(guard(), optional, [OTHER, null])).toBeUndefined();
    expect(refusal(guard(), optional, [OTHER, 'x'])).toMatch(/not an organization id/);
    // The verdict on the text is kept, the parameters are checked on every run.
    expect(refusal(guard(), sql, [OTHER, ORG])).toBeUndefined();
  });

  it('accepts a named, listed exemption and refuses an unknown one', () => {
    expect(
      refusal(guard(), `${tenancyExempt('by-key-after-scoped-read')} UPDATE cohorts SET name = $2 WHERE id = $1`, [
        OTHER,
        'x',
      ]),
    ).toBeUndefined();
    expect(refusal(guard(), '/*tenancy-exempt:because-i-say-so*/ SELECT * FROM cohorts')).toBe(
      'unknown tenancy exemption "because-i-say-so"',
    );
  });

  it('is not fooled by tables named in strings or comments, and leaves other tables and inserts alone', () => {
    expect(refusal(guard(), "SELECT 'FROM cohorts' AS x FROM users WHERE id = $1 -- JOIN memberships")).toBeUndefined();
    expect(refusal(guard(), '/* FROM cohorts */ SELECT 1 FROM users')).toBeUndefined();
    expect(refusal(guard(), '/*org*/ SELECT * FROM cohorts')).toMatch(/^no organization predicate/);
    expect(refusal(guard(), 'INSERT INTO cohorts (organization_id, name) VALUES ($1, $2)', [ORG, 'x'])).toBeUndefined();
    expect(
      refusal(guard(), 'SELECT created_by_organization_id FROM institutes WHERE created_by_organization_id = $1', [
        ORG,
      ]),
    ).toBeUndefined();
  });

  it('exempts by file only the listed files, wherever the application is built', () => {
    const covers = (name: keyof typeof TENANCY_EXEMPTIONS, frame: string): boolean => {
      const entry: { reason: string; files?: RegExp } = TENANCY_EXEMPTIONS[name];
      return entry.files?.test(`Error\n    at x (${frame}:10:5)`) ?? false;
    };
    expect(covers('personal-data', '/srv/app/dist/modules/insight/stats/stats.personal-data.js')).toBe(true);
    expect(covers('personal-data', '/repo/src/modules/insight/stats/stats.repository.ts')).toBe(false);
    expect(covers('platform-infrastructure', '/srv/app/dist/core/events/outbox.repository.js')).toBe(true);
    expect(covers('personal-data', '/repo/src/modules/learning/notes/notes.personal-data.ts')).toBe(true);
    expect(covers('platform-infrastructure', '/repo/src/core/queue/jobs.repository.ts')).toBe(true);
    expect(covers('platform-infrastructure', '/repo/node_modules/@nestjs/core/router/router-proxy.js')).toBe(false);
    // This spec is under none of them: its statement is refused.
    expect(refusal(guard(), 'SELECT * FROM cohorts WHERE id = $1', [OTHER])).toMatch(/^no organization predicate/);
  });

  it('only reports in log mode and does nothing when off', () => {
    expect(refusal(guard('log'), 'SELECT * FROM cohorts')).toBeUndefined();
    expect(refusal(guard('off'), 'SELECT * FROM cohorts')).toBeUndefined();
  });
});
