import { ApiProperty } from '@nestjs/swagger';
import { LessonScoreDto } from '@/modules/learning/progress';

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

// ---- a student's detail (extensions-v2 16.4) ----

export class StudentRefDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty() email!: string;
}

export class StudentQuizDto {
  @ApiProperty({ format: 'uuid' }) lesson_id!: string;
  @ApiProperty() lesson_title!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ type: Number, nullable: true }) best_score!: number | null;
  @ApiProperty() passed!: boolean;
}

export class StudentCourseDetailDto {
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ enum: ['active', 'completed'] }) status!: 'active' | 'completed';
  @ApiProperty({ minimum: 0, maximum: 100 }) percent!: number;
  @ApiProperty() lessons_completed!: number;
  @ApiProperty() lessons_total!: number;
  @ApiProperty({ format: 'date-time' }) last_activity_at!: string;
  @ApiProperty({ type: [StudentQuizDto], description: 'Quizzes of the course the student attempted' })
  quizzes!: StudentQuizDto[];
  @ApiProperty({
    type: [LessonScoreDto],
    description:
      'Lessons of the course an external tool (LTI) scored for the student in this organization, in course order',
  })
  lesson_scores!: LessonScoreDto[];
}

export class StudentExamDto {
  @ApiProperty({ format: 'uuid' }) exam_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ type: Number, nullable: true }) best_score!: number | null;
  @ApiProperty() passed!: boolean;
  @ApiProperty() flagged_sessions!: number;
}

export class StudentDeadlineDto {
  @ApiProperty({ format: 'uuid' }) deadline_id!: string;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty({ format: 'date-time' }) due_at!: string;
  @ApiProperty({ enum: ['done', 'overdue', 'upcoming'] }) status!: 'done' | 'overdue' | 'upcoming';
}

export class StudentActivityDto {
  @ApiProperty({ type: String, format: 'date', nullable: true }) last_active_on!: string | null;
  @ApiProperty() active_days_last_30!: number;
  @ApiProperty({ description: "The learner's current streak (GET /me/streak: freezes count), all organizations" })
  streak_current!: number;
}

export class StudentXpDto {
  @ApiProperty({ description: "The learner's XP in this organization (GET /me/xp)" }) total!: number;
  @ApiProperty({ description: "XP of the current ISO week in the organization's zone (the weekly leaderboard's)" })
  week!: number;
}

export class StudentDetailDto {
  @ApiProperty({ type: StudentRefDto }) student!: StudentRefDto;
  @ApiProperty({ type: CohortRefDto }) cohort!: CohortRefDto;
  @ApiProperty({ type: [StudentCourseDetailDto] }) courses!: StudentCourseDetailDto[];
  @ApiProperty({ type: [StudentExamDto] }) exams!: StudentExamDto[];
  @ApiProperty({ type: [StudentDeadlineDto], description: 'Empty until cohort deadlines exist (25.2)' })
  deadlines!: StudentDeadlineDto[];
  @ApiProperty({ type: StudentActivityDto }) activity!: StudentActivityDto;
  @ApiProperty({ type: StudentXpDto }) xp!: StudentXpDto;
}
