import type { EnrollmentDto } from './dto/course.dto';

/**
 * A learner's enrollment row without its lesson counts: one indexed row. The course pages read it to decide what
 * the caller may see, and count the lessons from the outline and completions they read anyway.
 */
export interface EnrollmentRecord {
  course_id: string;
  status: 'active' | 'completed';
  enrolled_at: Date;
  completed_at: Date | null;
  last_activity_at: Date;
}

/**
 * What the course pages need to know about a learner (their enrollment, enrolled cards, completed lessons). The
 * progress area owns enrollments and depends on this area, so it provides this port (in a global module) instead
 * of this area depending on it.
 */
export abstract class LearnerState {
  abstract enrollment(organizationId: string, userId: string, courseId: string): Promise<EnrollmentDto | null>;
  abstract enrollmentRecord(organizationId: string, userId: string, courseId: string): Promise<EnrollmentRecord | null>;
  /** The exams the course requires of this learner and how many they passed (`exams` of the enrollment). */
  abstract examRequirement(
    organizationId: string,
    userId: string,
    courseId: string,
  ): Promise<{ required: number; passed: number }>;
  /**
   * The enrollment as `enrollment` answers it, from its record, the lesson counts and the exam requirement the
   * caller read already (the course page reads the outline and the completions anyway): no aggregate statement.
   */
  abstract presentEnrollment(
    record: EnrollmentRecord,
    completedLessons: number,
    totalLessons: number,
    exams: { required: number; passed: number },
  ): EnrollmentDto;
  abstract enrolledCourseIds(organizationId: string, userId: string, courseIds: string[]): Promise<Set<string>>;
  abstract completedLessonIds(organizationId: string, userId: string, courseId: string): Promise<Set<string>>;
}
