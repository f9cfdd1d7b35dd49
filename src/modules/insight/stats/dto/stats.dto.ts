import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';

const RATE = {
  type: Number,
  nullable: true,
  minimum: 0,
  maximum: 100,
  description: 'Integer percent; null over nothing',
};

export class StatsQueryDto {
  @ApiPropertyOptional({ minimum: 7, maximum: 90, default: 30, description: 'Days of the period, ending today' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(7)
  @Max(90)
  days: number = 30;
}

export class OrganizationStatsQueryDto extends StatsQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: "Only this cohort's students (teachers: required)" })
  @IsOptional()
  @IsUUID('all')
  cohort_id?: string;
}

export class PeriodDto {
  @ApiProperty({ format: 'date-time', description: 'Start of the first local day of the period' }) from!: string;
  @ApiProperty({ format: 'date-time', description: 'Now' }) to!: string;
}

// ---- me ----

export class MeCoursesDto {
  @ApiProperty() enrolled!: number;
  @ApiProperty() completed!: number;
}
export class MeQuizzesDto {
  @ApiProperty() submitted!: number;
  @ApiProperty() passed!: number;
  @ApiProperty({ type: Number, nullable: true }) average_score!: number | null;
}
export class MeExamsDto {
  @ApiProperty() sessions!: number;
  @ApiProperty() passed!: number;
}
export class MeFlashcardsDto {
  @ApiProperty() reviews!: number;
  @ApiProperty() cards_learned!: number;
  @ApiProperty(RATE) retention_rate!: number | null;
}
export class GameBestDto {
  @ApiProperty({ type: Number, nullable: true }) survival!: number | null;
  @ApiProperty({ type: Number, nullable: true }) speed!: number | null;
  @ApiProperty({ type: Number, nullable: true }) risk!: number | null;
}
export class MeGamesDto {
  @ApiProperty() finished!: number;
  @ApiProperty({ type: GameBestDto }) best!: GameBestDto;
}
export class MeDuelsDto {
  @ApiProperty() played!: number;
  @ApiProperty() won!: number;
  @ApiProperty() lost!: number;
  @ApiProperty() drawn!: number;
}
export class StatsStreakDto {
  @ApiProperty() current!: number;
  @ApiProperty() longest!: number;
}
export class MeSeriesDto {
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty() xp!: number;
  @ApiProperty() lessons_completed!: number;
  @ApiProperty() reviews!: number;
}
export class MeStatsDto {
  @ApiProperty({ format: 'date-time' }) computed_at!: string;
  @ApiProperty({ type: PeriodDto }) period!: PeriodDto;
  @ApiProperty() xp_total!: number;
  @ApiProperty({ type: MeCoursesDto }) courses!: MeCoursesDto;
  @ApiProperty() lessons_completed!: number;
  @ApiProperty({ type: MeQuizzesDto }) quizzes!: MeQuizzesDto;
  @ApiProperty({ type: MeExamsDto }) exams!: MeExamsDto;
  @ApiProperty({ type: MeFlashcardsDto }) flashcards!: MeFlashcardsDto;
  @ApiProperty({ type: MeGamesDto }) games!: MeGamesDto;
  @ApiProperty({ type: MeDuelsDto }) duels!: MeDuelsDto;
  @ApiProperty({ type: StatsStreakDto }) streak!: StatsStreakDto;
  @ApiProperty() active_days!: number;
  @ApiProperty({ type: [MeSeriesDto] }) series!: MeSeriesDto[];
}

// ---- organization ----

export class ByRoleDto {
  @ApiProperty() owner!: number;
  @ApiProperty() admin!: number;
  @ApiProperty() teacher!: number;
  @ApiProperty() student!: number;
}
export class OrgMembersDto {
  @ApiProperty() total!: number;
  @ApiProperty({ type: ByRoleDto }) by_role!: ByRoleDto;
  @ApiProperty() joined_in_period!: number;
}
export class ActiveUsersDto {
  @ApiProperty({ description: 'Last 24 hours' }) day!: number;
  @ApiProperty({ description: 'Last 7 days' }) week!: number;
  @ApiProperty({ description: 'Last 30 days' }) month!: number;
}
export class OrgEnrollmentsDto {
  @ApiProperty() total!: number;
  @ApiProperty() in_period!: number;
  @ApiProperty() completed_in_period!: number;
  @ApiProperty({ ...RATE, description: 'Completed enrollments over all enrollments' })
  completion_rate!: number | null;
}
export class OrgCertificatesDto {
  @ApiProperty() issued_in_period!: number;
  @ApiProperty() active_total!: number;
}
export class OrgExamsDto {
  @ApiProperty() sessions_in_period!: number;
  @ApiProperty({ ...RATE, description: 'Passed over submitted sessions of the period' }) pass_rate!: number | null;
  @ApiProperty() flagged_in_period!: number;
}
export class OrgFlashcardsDto {
  @ApiProperty() reviews_in_period!: number;
}
export class TopCourseDto {
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() enrollments_in_period!: number;
  @ApiProperty() completions_in_period!: number;
}
export class OrgSeriesDto {
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty() active_users!: number;
  @ApiProperty() lessons_completed!: number;
  @ApiProperty() enrollments!: number;
  @ApiProperty() completions!: number;
}
export class OrgLtiDto {
  @ApiProperty() launches_total!: number;
  @ApiProperty() launches_in_period!: number;
}

export class OrganizationStatsDto {
  @ApiProperty({ format: 'date-time' }) computed_at!: string;
  @ApiProperty({ type: PeriodDto }) period!: PeriodDto;
  @ApiProperty({ type: OrgMembersDto }) members!: OrgMembersDto;
  @ApiProperty({ type: ActiveUsersDto }) active_users!: ActiveUsersDto;
  @ApiProperty({ type: OrgEnrollmentsDto }) enrollments!: OrgEnrollmentsDto;
  @ApiProperty({ type: OrgCertificatesDto }) certificates!: OrgCertificatesDto;
  @ApiProperty({ type: OrgExamsDto }) exams!: OrgExamsDto;
  @ApiProperty({ type: OrgFlashcardsDto }) flashcards!: OrgFlashcardsDto;
  @ApiProperty({ type: OrgLtiDto, description: 'Launches of LTI tools (extensions-v3 1.3), whole organization' })
  lti!: OrgLtiDto;
  @ApiProperty({ type: [TopCourseDto], maxItems: 10 }) top_courses!: TopCourseDto[];
  @ApiProperty({ type: [OrgSeriesDto] }) series!: OrgSeriesDto[];
}

// ---- editor course ----

export class CountsDto {
  @ApiProperty() total!: number;
  @ApiProperty() in_period!: number;
}
export class RatingDistributionDto {
  @ApiProperty({ name: '1' }) '1'!: number;
  @ApiProperty({ name: '2' }) '2'!: number;
  @ApiProperty({ name: '3' }) '3'!: number;
  @ApiProperty({ name: '4' }) '4'!: number;
  @ApiProperty({ name: '5' }) '5'!: number;
}
export class CourseRatingStatsDto {
  @ApiProperty({ type: Number, nullable: true, description: 'Two decimals; null without ratings' })
  average!: number | null;
  @ApiProperty() count!: number;
  @ApiProperty({ type: RatingDistributionDto }) distribution!: RatingDistributionDto;
}
export class LessonQuizStatsDto {
  @ApiProperty() submissions!: number;
  @ApiProperty(RATE) pass_rate!: number | null;
  @ApiProperty({ type: Number, nullable: true }) average_score!: number | null;
}
export class LessonStatsDto {
  @ApiProperty({ format: 'uuid' }) lesson_id!: string;
  @ApiProperty() position!: number;
  @ApiProperty() title!: string;
  @ApiProperty() completions!: number;
  @ApiProperty({ ...RATE, description: 'Completions over enrollments' }) completion_rate!: number | null;
  @ApiProperty({ type: LessonQuizStatsDto, nullable: true }) quiz!: LessonQuizStatsDto | null;
}
export class ExamStatsDto {
  @ApiProperty({ format: 'uuid' }) exam_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() sessions!: number;
  @ApiProperty(RATE) pass_rate!: number | null;
  @ApiProperty({ type: Number, nullable: true }) average_score!: number | null;
}
export class CourseStatsDto {
  @ApiProperty({ format: 'date-time' }) computed_at!: string;
  @ApiProperty({ type: PeriodDto }) period!: PeriodDto;
  @ApiProperty({ type: CountsDto }) enrollments!: CountsDto;
  @ApiProperty({ type: CountsDto }) completions!: CountsDto;
  @ApiProperty(RATE) completion_rate!: number | null;
  @ApiProperty({ description: 'Organizations with enrollments' }) organizations!: number;
  @ApiProperty({ type: CourseRatingStatsDto }) rating!: CourseRatingStatsDto;
  @ApiProperty({ type: [LessonStatsDto] }) lessons!: LessonStatsDto[];
  @ApiProperty({ type: [ExamStatsDto] }) exams!: ExamStatsDto[];
}

// ---- platform ----

export class PlatformOrganizationsDto {
  @ApiProperty() total!: number;
  @ApiProperty() active!: number;
  @ApiProperty() suspended!: number;
  @ApiProperty() created_in_period!: number;
}
export class PlatformUsersDto {
  @ApiProperty() total!: number;
  @ApiProperty() created_in_period!: number;
  @ApiProperty({ type: ActiveUsersDto }) active!: ActiveUsersDto;
}
export class PlatformCoursesDto {
  @ApiProperty() published!: number;
  @ApiProperty({ description: 'Not published (draft or unpublished)' }) draft!: number;
}
export class PlatformCertificatesDto {
  @ApiProperty() issued_total!: number;
  @ApiProperty() issued_in_period!: number;
}
export class PlatformAiDto {
  @ApiProperty() requests_in_period!: number;
  @ApiProperty() tokens_in_period!: number;
}
export class PlatformSeriesDto {
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty() new_users!: number;
  @ApiProperty() active_users!: number;
  @ApiProperty() enrollments!: number;
}
export class PlatformStatsDto {
  @ApiProperty({ format: 'date-time' }) computed_at!: string;
  @ApiProperty({ type: PeriodDto }) period!: PeriodDto;
  @ApiProperty({ type: PlatformOrganizationsDto }) organizations!: PlatformOrganizationsDto;
  @ApiProperty({ type: PlatformUsersDto }) users!: PlatformUsersDto;
  @ApiProperty({ type: PlatformCoursesDto }) courses!: PlatformCoursesDto;
  @ApiProperty({ type: CountsDto }) enrollments!: CountsDto;
  @ApiProperty({ type: PlatformCertificatesDto }) certificates!: PlatformCertificatesDto;
  @ApiProperty({ type: PlatformAiDto }) ai!: PlatformAiDto;
  @ApiProperty({ type: [PlatformSeriesDto] }) series!: PlatformSeriesDto[];
}
