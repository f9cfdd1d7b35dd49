import { Injectable } from '@nestjs/common';
import type { Credential } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import { addDays, daysBetween, isoWeekBounds, isoWeekKey, localDate } from '@/core/time/local-time';
import type { ActivityDto, ActivityQueryDto, GoalsDto, UpdateGoalsDto } from './dto/me.dto';
import { LedgerRepository } from './ledger.repository';
import { RewardsRepository } from './rewards.repository';
import { StreaksRepository } from './streaks.repository';

const MAX_ACTIVITY_DAYS = 366;

/** The person's activity calendar and goals (extensions-v2 3.4, 3.5, 5.7); personal, in their zone. */
@Injectable()
export class MeEngagementService {
  constructor(
    private readonly streaks: StreaksRepository,
    private readonly ledger: LedgerRepository,
    private readonly rewards: RewardsRepository,
    private readonly clock: Clock,
  ) {}

  private async zone(userId: string): Promise<string> {
    return (await this.ledger.userZones([userId])).get(userId) ?? 'UTC';
  }

  async activity(credential: Credential, query: ActivityQueryDto): Promise<ActivityDto> {
    const zone = await this.zone(credential.userId);
    const today = localDate(this.clock.now(), zone);
    const problems: { field: string; message: string }[] = [];
    for (const field of ['from', 'to'] as const) {
      const v = query[field];
      if (v !== undefined && !isDate(v)) problems.push({ field, message: `${field} is not a valid date` });
    }
    if (problems.length) throw ApiError.validation(problems);
    const to = query.to ?? (query.from ? minDate(addDays(query.from, MAX_ACTIVITY_DAYS - 1), today) : today);
    const from = query.from ?? addDays(to, -364);
    if (from > to) throw ApiError.validation([{ field: 'from', message: 'from must not be after to' }]);
    if (daysBetween(from, to) + 1 > MAX_ACTIVITY_DAYS)
      throw ApiError.validation([{ field: 'from', message: `at most ${MAX_ACTIVITY_DAYS} days` }]);
    const [rows, frozen] = await Promise.all([
      this.streaks.activityDays(credential.userId, from, to, credential.organizationId),
      this.streaks.frozenDates(credential.userId, from, to),
    ]);
    const frozenSet = new Set(frozen);
    return {
      time_zone: zone,
      from,
      to,
      days: rows.map((r) => ({ ...r, frozen: frozenSet.has(r.date) })),
    };
  }

  async goals(credential: Credential): Promise<GoalsDto> {
    const zone = await this.zone(credential.userId);
    const now = this.clock.now();
    const today = localDate(now, zone);
    const week = isoWeekKey(now, zone);
    const weekStart = localDate(isoWeekBounds(week, zone).start, zone);
    const goal = await this.rewards.goal(credential.userId);
    const [day, weekSums] = await Promise.all([
      this.streaks.daySums(credential.userId, today, today, credential.organizationId),
      this.streaks.daySums(credential.userId, weekStart, addDays(weekStart, 6), credential.organizationId),
    ]);
    const dailyXp = goal?.daily_xp ?? null;
    const weeklyLessons = goal?.weekly_lessons ?? null;
    return {
      daily_xp: dailyXp,
      weekly_lessons: weeklyLessons,
      today: { date: today, xp: day.xp, met: dailyXp !== null && day.xp >= dailyXp },
      this_week: {
        week,
        lessons: weekSums.lessons_completed,
        met: weeklyLessons !== null && weekSums.lessons_completed >= weeklyLessons,
      },
    };
  }

  async setGoals(credential: Credential, dto: UpdateGoalsDto): Promise<GoalsDto> {
    const has = (k: keyof UpdateGoalsDto): boolean =>
      Object.prototype.hasOwnProperty.call(dto, k) && dto[k] !== undefined;
    await this.rewards.saveGoal(
      credential.userId,
      {
        dailyXp: { set: has('daily_xp'), value: dto.daily_xp ?? null },
        weeklyLessons: { set: has('weekly_lessons'), value: dto.weekly_lessons ?? null },
      },
      this.clock.now(),
    );
    return this.goals(credential);
  }
}

function isDate(v: string): boolean {
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

function minDate(a: string, b: string): string {
  return a < b ? a : b;
}
