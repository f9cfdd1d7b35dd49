import { Injectable } from '@nestjs/common';
import type { Credential } from '@/core/auth/credential';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import { addDays, localDate, startOfLocalDate } from '@/core/time/local-time';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import type { CourseStatsDto, MeStatsDto, OrganizationStatsDto, PeriodDto, PlatformStatsDto } from './dto/stats.dto';
import { StatsRepository, toNumber as n } from './stats.repository';
import { LtiToolsService } from '@/modules/integrations/lti';

/** Integer percent, half up; null over nothing (extensions-v2 14). */
export function rate(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((100 * part) / whole) : null;
}

/** The local days of a period of `days` days ending today in `zone`, ascending. */
export function periodDays(now: Date, zone: string, days: number): string[] {
  const today = localDate(now, zone);
  return Array.from({ length: days }, (_, i) => addDays(today, i - days + 1));
}

/**
 * Current and longest runs of consecutive local days. The current run ends today, or yesterday when today has
 * no activity yet (the day is not over).
 */
export function streaks(days: readonly string[], today: string): { current: number; longest: number } {
  let longest = 0;
  let run = 0;
  let prev: string | null = null;
  for (const d of days) {
    run = prev !== null && addDays(prev, 1) === d ? run + 1 : 1;
    longest = Math.max(longest, run);
    prev = d;
  }
  const set = new Set(days);
  let current = 0;
  let day = set.has(today) ? today : addDays(today, -1);
  while (set.has(day)) {
    current++;
    day = addDays(day, -1);
  }
  return { current, longest };
}

type Row = Record<string, unknown>;

function byDate(rows: Row[]): Map<string, Row> {
  return new Map(rows.map((r) => [r.date as string, r]));
}

/** Statistics (extensions-v2 14): personal, organization, course (editor) and platform. */
@Injectable()
export class StatsService {
  constructor(
    private readonly repository: StatsRepository,
    private readonly clock: Clock,
    private readonly organizations: OrganizationsService,
    private readonly users: UsersService,
    private readonly lti: LtiToolsService,
  ) {}

  private period(now: Date, zone: string, days: number): { days: string[]; from: Date; dto: PeriodDto } {
    const list = periodDays(now, zone, days);
    const from = startOfLocalDate(list[0], zone);
    return { days: list, from, dto: { from: from.toISOString(), to: now.toISOString() } };
  }

  async me(credential: Credential, days: number): Promise<MeStatsDto> {
    const now = this.clock.now();
    const user = await this.users.getById(credential.userId);
    const zone = user.timeZone;
    const p = this.period(now, zone, days);
    // A bearer token counts its organization only (2.4).
    const {
      summary: s,
      series,
      days: active,
    } = await this.repository.personal(credential.userId, credential.organizationId, p.from, zone);
    const rows = byDate(series);
    const inPeriod = new Set(p.days);
    return {
      computed_at: now.toISOString(),
      period: p.dto,
      xp_total: 0,
      courses: { enrolled: n(s.enrolled), completed: n(s.completed) },
      lessons_completed: n(s.lessons_completed),
      quizzes: {
        submitted: n(s.submitted),
        passed: n(s.passed),
        average_score: s.average_score === null ? null : n(s.average_score),
      },
      exams: { sessions: n(s.sessions), passed: n(s.exams_passed) },
      flashcards: { reviews: n(s.reviews), cards_learned: 0, retention_rate: null },
      games: { finished: 0, best: { survival: null, speed: null, risk: null } },
      duels: { played: 0, won: 0, lost: 0, drawn: 0 },
      streak: streaks(active, p.days[p.days.length - 1]),
      active_days: active.filter((d) => inPeriod.has(d)).length,
      series: p.days.map((date) => ({
        date,
        xp: 0,
        lessons_completed: n(rows.get(date)?.lessons_completed),
        reviews: n(rows.get(date)?.reviews),
      })),
    };
  }

  async organization(member: Membership, days: number, cohortId?: string): Promise<OrganizationStatsDto> {
    let cohort: string | null = null;
    if (cohortId) {
      const found = await this.repository.cohort(member.organizationId, cohortId.toLowerCase(), member.userId);
      if (!found) throw ApiError.notFound('Cohort not found.');
      if (!isAdmin(member.role) && !found.teaches) throw ApiError.forbidden('Only cohorts you teach.');
      cohort = cohortId.toLowerCase();
    } else if (!isAdmin(member.role)) {
      throw ApiError.forbidden('A teacher reads the statistics of a cohort they teach (`cohort_id`).');
    }
    const org = await this.organizations.getById(member.organizationId);
    const now = this.clock.now();
    const p = this.period(now, org.timeZone, days);
    const {
      summary: s,
      topCourses,
      series,
    } = await this.repository.organization(member.organizationId, cohort, p.from, now, org.timeZone);
    const launches = await this.lti.launchCounts(member.organizationId, p.from);
    const rows = byDate(series);
    return {
      computed_at: now.toISOString(),
      period: p.dto,
      members: {
        total: n(s.members_total),
        by_role: { owner: n(s.owners), admin: n(s.admins), teacher: n(s.teachers), student: n(s.students) },
        joined_in_period: n(s.joined_in_period),
      },
      active_users: { day: n(s.active_day), week: n(s.active_week), month: n(s.active_month) },
      enrollments: {
        total: n(s.enrollments_total),
        in_period: n(s.enrollments_in_period),
        completed_in_period: n(s.completed_in_period),
        completion_rate: rate(n(s.enrollments_completed), n(s.enrollments_total)),
      },
      certificates: { issued_in_period: n(s.certificates_in_period), active_total: n(s.certificates_active) },
      exams: {
        sessions_in_period: n(s.sessions_in_period),
        pass_rate: rate(n(s.sessions_passed), n(s.sessions_submitted)),
        flagged_in_period: n(s.sessions_flagged),
      },
      flashcards: { reviews_in_period: n(s.reviews_in_period) },
      lti: launches,
      top_courses: topCourses.map((c) => ({
        course_id: c.course_id as string,
        title: c.title as string,
        enrollments_in_period: n(c.enrollments_in_period),
        completions_in_period: n(c.completions_in_period),
      })),
      series: p.days.map((date) => {
        const r = rows.get(date);
        return {
          date,
          active_users: n(r?.active_users),
          lessons_completed: n(r?.lessons_completed),
          enrollments: n(r?.enrollments),
          completions: n(r?.completions),
        };
      }),
    };
  }

  async course(courseId: string, days: number): Promise<CourseStatsDto> {
    const id = courseId.toLowerCase();
    if (!(await this.repository.courseExists(id))) throw ApiError.notFound('Course not found.');
    const now = this.clock.now();
    const p = this.period(now, 'UTC', days);
    const { summary: s, ratings, lessons, exams } = await this.repository.course(id, p.from);
    const distribution = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 } as Record<'1' | '2' | '3' | '4' | '5', number>;
    let count = 0;
    let sum = 0;
    for (const r of ratings) {
      const stars = n(r.stars);
      distribution[String(stars) as '1'] = n(r.n);
      count += n(r.n);
      sum += stars * n(r.n);
    }
    const enrolled = n(s.enrollments_total);
    return {
      computed_at: now.toISOString(),
      period: p.dto,
      enrollments: { total: enrolled, in_period: n(s.enrollments_in_period) },
      completions: { total: n(s.completions_total), in_period: n(s.completions_in_period) },
      completion_rate: rate(n(s.completions_total), enrolled),
      organizations: n(s.organizations),
      rating: { average: count ? Math.round((100 * sum) / count) / 100 : null, count, distribution },
      lessons: lessons.map((l) => ({
        lesson_id: l.lesson_id as string,
        position: n(l.position),
        title: l.title as string,
        completions: n(l.completions),
        completion_rate: rate(n(l.completions), enrolled),
        quiz:
          n(l.has_quiz) > 0
            ? {
                submissions: n(l.submissions),
                pass_rate: rate(n(l.passed), n(l.submissions)),
                average_score: l.average_score === null ? null : n(l.average_score),
              }
            : null,
      })),
      exams: exams.map((e) => ({
        exam_id: e.exam_id as string,
        title: e.title as string,
        sessions: n(e.sessions),
        pass_rate: rate(n(e.passed), n(e.submitted)),
        average_score: e.average_score === null ? null : n(e.average_score),
      })),
    };
  }

  async platform(days: number): Promise<PlatformStatsDto> {
    const now = this.clock.now();
    const p = this.period(now, 'UTC', days);
    const { summary: s, series, newUsers } = await this.repository.platform(p.from, now);
    const rows = byDate(series);
    const created = byDate(newUsers);
    return {
      computed_at: now.toISOString(),
      period: p.dto,
      organizations: {
        total: n(s.orgs_total),
        active: n(s.orgs_active),
        suspended: n(s.orgs_suspended),
        created_in_period: n(s.orgs_created),
      },
      users: {
        total: n(s.users_total),
        created_in_period: n(s.users_created),
        active: { day: n(s.active_day), week: n(s.active_week), month: n(s.active_month) },
      },
      courses: { published: n(s.courses_published), draft: n(s.courses_draft) },
      enrollments: { total: n(s.enrollments_total), in_period: n(s.enrollments_in_period) },
      certificates: { issued_total: n(s.certificates_total), issued_in_period: n(s.certificates_in_period) },
      ai: { requests_in_period: n(s.ai_requests), tokens_in_period: n(s.ai_tokens) },
      series: p.days.map((date) => ({
        date,
        new_users: n(created.get(date)?.n),
        active_users: n(rows.get(date)?.active_users),
        enrollments: n(rows.get(date)?.enrollments),
      })),
    };
  }
}
