import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Learning records are tenant data: every query takes the organization id. */
@Injectable()
export class ProgressRepository {
  constructor(private readonly dataSource: DataSource) {}

  async completedCourseIds(organizationId: string, userId: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ course_id: string }[]>(
      `SELECT course_id FROM enrollments WHERE organization_id = $1 AND user_id = $2 AND status = 'completed'`,
      [organizationId, userId],
    );
    return rows.map((r) => r.course_id);
  }
}
