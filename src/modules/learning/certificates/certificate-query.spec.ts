import { orgEq } from '@/core/database/tenancy';
import { certificateWhere } from './certificate-query';

describe('certificate list conditions', () => {
  const org = '11111111-1111-4111-8111-111111111111';

  it('always scopes to the organization as $1', () => {
    expect(certificateWhere(org, {})).toEqual({ sql: orgEq(1, 'c'), params: [org] });
  });

  it('numbers each filter in order and scopes cohort and teacher subqueries to the organization', () => {
    const { sql, params } = certificateWhere(org, {
      courseId: 'c',
      pathId: 'p',
      status: 'active',
      type: 'course',
      cohortId: 'h',
      teacherId: 't',
    });
    expect(params).toEqual([org, 'c', 'p', 'active', 'course', 'h', 't']);
    expect(sql).toContain('c.course_id = $2');
    expect(sql).toContain('c.path_id = $3');
    expect(sql).toContain('c.status = $4');
    expect(sql).toContain('c.type = $5');
    expect(sql).toContain(`m.cohort_id = $6 AND ${orgEq(1, 'm')}`);
    expect(sql).toContain(`${orgEq(1, 't')} AND t.user_id = $7 AND t.role = 'teacher'`);
    expect(sql).toContain("s.role = 'student'");
  });
});
