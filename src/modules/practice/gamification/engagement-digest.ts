import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EngagementDigest, type WeeklySummary } from '@/core/ports/engagement-digest';
import { addDays, isoWeekBounds, localDate } from '@/core/time/local-time';
import { LedgerRepository } from './ledger.repository';
import { StreaksService } from './streaks.service';
import { tenancyExempt } from '@/core/database/tenancy';

/**
 * The engagement figures the notifications area sends (extensions-v2 13.1): who needs a streak reminder and the
 * weekly summary. Weeks and days are the person's (their zone).
 */
@Injectable()
export class EngagementDigestOfGamification extends EngagementDigest {
  constructor(
    private readonly streaks: StreaksService,
    private readonly ledger: LedgerRepository,
    private readonly dataSource: DataSource,
  ) {
    super();
  }

  async needingStreakReminder(userIds: readonly string[], at: Date): Promise<string[]> {
    const figures = await this.streaks.currentOf(userIds, at);
    return userIds.filter((id) => {
      const f = figures.get(id);
      return f !== undefined && f.current >= 1 && !f.todayActive;
    });
  }

  async weeklySummary(userId: string, week: string): Promise<WeeklySummary | null> {
    const zone = (await this.ledger.userZones([userId])).get(userId) ?? 'UTC';
    const { start, end } = isoWeekBounds(week, zone);
    const first = localDate(start, zone);
    const last = addDays(first, 6);
    const fourWeeksFrom = addDays(first, -21);
    const active = await this.dataSource.query<{ n: number }[]>(
      `${tenancyExempt('person-across-organizations')} SELECT count(*)::int AS n FROM activity_days WHERE user_id = $1 AND active AND local_date BETWEEN $2 AND $3`,
      [userId, fourWeeksFrom, last],
    );
    if (active[0].n === 0) return null;
    const organizations = await this.dataSource.query<
      { organization_id: string; xp: number; lessons_completed: number; reviews: number; courses_in_progress: number }[]
    >(
      // Enrollments are the progress area's (read-only): courses not completed with activity in the 4 weeks.
      `${tenancyExempt('person-across-organizations')} SELECT m.organization_id,
         coalesce(sum(a.xp), 0)::int AS xp, coalesce(sum(a.lessons_completed), 0)::int AS lessons_completed,
         coalesce(sum(a.reviews), 0)::int AS reviews,
         (SELECT count(*) FROM enrollments_read e WHERE e.organization_id = m.organization_id AND e.user_id = m.user_id
            AND e.status = 'active' AND e.last_activity_at >= $4 AND e.last_activity_at < $5)::int AS courses_in_progress
       FROM memberships_read m
       LEFT JOIN activity_days a ON a.user_id = m.user_id AND a.organization_id = m.organization_id
         AND a.local_date BETWEEN $2 AND $3
       WHERE m.user_id = $1
       GROUP BY m.organization_id, m.user_id ORDER BY m.organization_id`,
      [userId, first, last, new Date(start.getTime() - 21 * 86_400_000), end],
    );
    const streak = await this.streaks.currentOf([userId], end);
    return {
      user_id: userId,
      week,
      streak_current: streak.get(userId)?.current ?? 0,
      organizations,
    };
  }
}
