/** A course of a path or program, in order, and whether completing it is required. */
export interface RequirementCourse {
  course_id: string;
  required: boolean;
}

export interface ProgramRequirements {
  courses: readonly RequirementCourse[];
  /** The capstone, when the program has one. */
  capstone: { passing_score: number } | null;
}

export interface LearnerState {
  completedCourseIds: ReadonlySet<string>;
  /** Whether one of the person's capstone submissions was graded as passed. */
  capstonePassed: boolean;
}

export type Evaluation =
  { outcome: 'met' } | { outcome: 'courses_missing'; missing: string[] } | { outcome: 'capstone_pending' };

/**
 * The courses that count: the required ones; when none is marked required, all of them (a program that
 * required nothing would otherwise be completed by doing nothing).
 */
export function countingCourses(courses: readonly RequirementCourse[]): RequirementCourse[] {
  const required = courses.filter((c) => c.required);
  return required.length > 0 ? required : [...courses];
}

/** Whether every course that counts is completed (a path's "completed"). */
export function coursesMet(courses: readonly RequirementCourse[], completed: ReadonlySet<string>): boolean {
  return countingCourses(courses).every((c) => completed.has(c.course_id));
}

/**
 * The program state table, in its order: courses first (409 `program_not_completed`), then the capstone
 * (409 `capstone_required`); otherwise the program may be marked completed.
 */
export function evaluateProgram(program: ProgramRequirements, learner: LearnerState): Evaluation {
  const missing = countingCourses(program.courses)
    .filter((c) => !learner.completedCourseIds.has(c.course_id))
    .map((c) => c.course_id);
  if (missing.length > 0) return { outcome: 'courses_missing', missing };
  if (program.capstone && !learner.capstonePassed) return { outcome: 'capstone_pending' };
  return { outcome: 'met' };
}

/** A graded capstone passes at or above the program's passing score. */
export function capstoneOutcome(score: number, passingScore: number): 'passed' | 'failed' {
  return score >= passingScore ? 'passed' : 'failed';
}
