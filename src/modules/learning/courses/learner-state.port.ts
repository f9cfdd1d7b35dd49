import type { EnrollmentDto } from './dto/course.dto';

/**
 * What the course pages need to know about a learner (their enrollment, enrolled cards, completed lessons). The
 * progress area owns enrollments and depends on this area, so it provides this port (in a global module) instead
 * of this area depending on it.
 */
export abstract class LearnerState {
  abstract enrollment(organizationId: string, userId: string, courseId: string): Promise<EnrollmentDto | null>;
  abstract enrolledCourseIds(organizationId: string, userId: string, courseIds: string[]): Promise<Set<string>>;
  abstract completedLessonIds(organizationId: string, userId: string, courseId: string): Promise<Set<string>>;
}
