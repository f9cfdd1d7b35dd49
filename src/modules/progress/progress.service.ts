import { Injectable } from '@nestjs/common';
import { ProgressRepository } from './progress.repository';

/**
 * Enrollment and completion. Other areas (programs, teacher views) use this exported service; they never query
 * learning tables themselves.
 */
@Injectable()
export class ProgressService {
  constructor(private readonly progress: ProgressRepository) {}

  /** The courses this person has completed in this organization. */
  async completedCourseIds(organizationId: string, userId: string): Promise<Set<string>> {
    return new Set(await this.progress.completedCourseIds(organizationId, userId));
  }
}
