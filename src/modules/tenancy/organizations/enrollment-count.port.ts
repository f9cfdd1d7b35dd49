/**
 * The enrollments of an organization, shown in its plan usage. The progress area owns enrollments and depends on
 * this area, so it provides this port (in a global module) instead of this area depending on it.
 */
export abstract class EnrollmentCount {
  abstract countEnrollments(organizationId: string): Promise<number>;
}
