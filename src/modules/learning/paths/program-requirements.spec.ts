import { capstoneOutcome, coursesMet, countingCourses, evaluateProgram } from './program-requirements';

const courses = [
  { course_id: 'a', required: true },
  { course_id: 'b', required: true },
  { course_id: 'c', required: false },
];

describe('program requirements', () => {
  it('count the required courses, or all of them when none is required', () => {
    expect(countingCourses(courses).map((c) => c.course_id)).toEqual(['a', 'b']);
    const optional = courses.map((c) => ({ ...c, required: false }));
    expect(countingCourses(optional).map((c) => c.course_id)).toEqual(['a', 'b', 'c']);
    expect(countingCourses([])).toEqual([]);
  });

  it('a path is met once the counting courses are completed', () => {
    expect(coursesMet(courses, new Set(['a']))).toBe(false);
    expect(coursesMet(courses, new Set(['a', 'b']))).toBe(true);
    expect(
      coursesMet(
        courses.map((c) => ({ ...c, required: false })),
        new Set(['a', 'b']),
      ),
    ).toBe(false);
  });

  it('check courses first (naming the missing ones), then the capstone', () => {
    const program = { courses, capstone: { passing_score: 70 } };
    expect(evaluateProgram(program, { completedCourseIds: new Set(['c']), capstonePassed: true })).toEqual({
      outcome: 'courses_missing',
      missing: ['a', 'b'],
    });
    expect(evaluateProgram(program, { completedCourseIds: new Set(['a']), capstonePassed: false })).toEqual({
      outcome: 'courses_missing',
      missing: ['b'],
    });
    expect(evaluateProgram(program, { completedCourseIds: new Set(['a', 'b']), capstonePassed: false })).toEqual({
      outcome: 'capstone_pending',
    });
    expect(evaluateProgram(program, { completedCourseIds: new Set(['a', 'b']), capstonePassed: true })).toEqual({
      outcome: 'met',
    });
  });

  it('a program without a capstone needs only its courses', () => {
    expect(
      evaluateProgram({ courses, capstone: null }, { completedCourseIds: new Set(['a', 'b']), capstonePassed: false }),
    ).toEqual({ outcome: 'met' });
  });

  it('a capstone passes at or above the passing score', () => {
    expect(capstoneOutcome(70, 70)).toBe('passed');
    expect(capstoneOutcome(69, 70)).toBe('failed');
    expect(capstoneOutcome(100, 70)).toBe('passed');
    expect(capstoneOutcome(0, 0)).toBe('passed');
  });
});
