import { ApiProperty } from '@nestjs/swagger';

export class TeacherCohortDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) institute_id!: string | null;
  @ApiProperty({ type: String, format: 'date', nullable: true }) starts_on!: string | null;
  @ApiProperty({ type: String, format: 'date', nullable: true }) ends_on!: string | null;
  @ApiProperty({ minimum: 0, description: 'Students and teachers of the cohort' }) members_count!: number;
}

export class CohortRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
}

export class StudentCourseProgressDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Display name; null when the person has not set one' })
  name!: string | null;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() course_title!: string;
  @ApiProperty({ minimum: 0, maximum: 100, description: 'Lessons completed, integer percent' }) percent!: number;
  @ApiProperty() completed!: boolean;
  @ApiProperty({ format: 'date-time' }) last_activity_at!: string;
}

export class StudentSummaryDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ minimum: 0 }) courses_enrolled!: number;
  @ApiProperty({ minimum: 0 }) courses_completed!: number;
  @ApiProperty({
    minimum: 0,
    maximum: 100,
    description: 'Mean percent over the courses enrolled, rounded; 0 without enrollments',
  })
  average_percent!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Latest activity in any course' })
  last_activity_at!: string | null;
}

export class CohortProgressDto {
  @ApiProperty({ type: CohortRefDto }) cohort!: CohortRefDto;
  @ApiProperty({ type: [StudentSummaryDto], description: 'Every student of the cohort, by name' })
  students!: StudentSummaryDto[];
  @ApiProperty({
    type: [StudentCourseProgressDto],
    description: 'One row per student and course they are enrolled in (in this organization), by name then course',
  })
  items!: StudentCourseProgressDto[];
}
