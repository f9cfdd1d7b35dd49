import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { orgEq } from '@/core/database/tenancy';

export interface EarnedBadge {
  code: string;
  kind: 'system' | 'program';
  name: string;
  icon: string | null;
  awarded_at: Date;
  path_title: string | null;
}

export interface MemberCounts {
  lessons: number;
  courses: number;
  exams: number;
  reviews: number;
  duels_won: number;
  xp: number;
}

export interface GoalRow {
  daily_xp: number | null;
  weekly_lessons: number | null;
}

/** A goal change: each field is written only when `set` says the request carried it. */
export interface GoalChange {
  dailyXp: { set: boolean; value: number | null };
  weeklyLessons: { set: boolean; value: number | null };
}

/** Badges, titles, mission claims, daily rewards and goals of members (extensions-v2 5.2-5.5, 5.7). */
@Injectable()
export class RewardsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async earnedBadges(organizationId: string, userId: string): Promise<EarnedBadge[]> {
    return this.dataSource.query(
      `SELECT b.code, b.kind, b.name, b.icon, b.awarded_at,
         (SELECT title FROM learning_paths_read p WHERE p.id = b.path_id) AS path_title
       FROM badge_awards b WHERE ${orgEq(1, 'b')} AND b.user_id = $2 AND b.code IS NOT NULL
       ORDER BY b.awarded_at DESC, b.code`,
      [organizationId, userId],
    );
  }

  /** The counts behind badge progress, in one organization. */
  async counts(organizationId: string, userId: string): Promise<MemberCounts> {
    const [row] = await this.dataSource.query<MemberCounts[]>(
      `SELECT
         coalesce((SELECT sum(lessons_completed) FROM activity_days WHERE ${orgEq(1)} AND user_id = $2), 0)::int AS lessons,
         (SELECT count(*) FROM xp_ledger WHERE ${orgEq(1)} AND user_id = $2 AND source = 'course')::int AS courses,
         (SELECT count(*) FROM xp_ledger WHERE ${orgEq(1)} AND user_id = $2 AND source = 'exam_pass')::int AS exams,
         coalesce((SELECT sum(reviews) FROM activity_days WHERE ${orgEq(1)} AND user_id = $2), 0)::int AS reviews,
         coalesce((SELECT sum(duels_won) FROM activity_days WHERE ${orgEq(1)} AND user_id = $2), 0)::int AS duels_won,
         coalesce((SELECT xp FROM xp_totals WHERE ${orgEq(1)} AND user_id = $2), 0)::int AS xp`,
      [organizationId, userId],
    );
    return row;
  }

  async currentTitle(organizationId: string, userId: string): Promise<string | null> {
    const rows = await this.dataSource.query<{ code: string }[]>(
      `SELECT code FROM member_titles WHERE ${orgEq(1)} AND user_id = $2`,
      [organizationId, userId],
    );
    return rows[0]?.code ?? null;
  }

  async setTitle(organizationId: string, userId: string, code: string | null, now: Date): Promise<void> {
    if (code === null) {
      await this.dataSource.query(`DELETE FROM member_titles WHERE ${orgEq(1)} AND user_id = $2`, [
        organizationId,
        userId,
      ]);
      return;
    }
    await this.dataSource.query(
      `INSERT INTO member_titles (organization_id, user_id, code, chosen_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id, user_id) DO UPDATE SET code = EXCLUDED.code, chosen_at = EXCLUDED.chosen_at`,
      [organizationId, userId, code, now],
    );
  }

  async claimedMissions(organizationId: string, userId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.dataSource.query<{ mission_id: string }[]>(
      `SELECT mission_id FROM mission_claims WHERE ${orgEq(1)} AND user_id = $2 AND mission_id = ANY($3::text[])`,
      [organizationId, userId, ids],
    );
    return new Set(rows.map((r) => r.mission_id));
  }

  /** Records a mission claim; false when it was claimed already. */
  async claimMission(
    organizationId: string,
    userId: string,
    missionId: string,
    reward: number,
    now: Date,
    tx: Tx,
  ): Promise<boolean> {
    const rows = await tx.manager.query<unknown[]>(
      `INSERT INTO mission_claims (organization_id, user_id, mission_id, reward_xp, claimed_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [organizationId, userId, missionId, reward, now],
    );
    return rows.length === 1;
  }

  async dailyClaims(
    organizationId: string,
    userId: string,
    dates: readonly string[],
    tx?: Tx,
  ): Promise<Map<string, number>> {
    const rows = await db(this.dataSource, tx).query<{ d: string; consecutive_days: number }[]>(
      `SELECT to_char(local_date, 'YYYY-MM-DD') AS d, consecutive_days FROM daily_reward_claims
       WHERE ${orgEq(1)} AND user_id = $2 AND local_date = ANY($3::date[])`,
      [organizationId, userId, dates],
    );
    return new Map(rows.map((r) => [r.d, r.consecutive_days]));
  }

  /** Records today's claim; false when there is one already. */
  async claimDaily(
    organizationId: string,
    userId: string,
    date: string,
    consecutive: number,
    amount: number,
    now: Date,
    tx: Tx,
  ): Promise<boolean> {
    const rows = await tx.manager.query<unknown[]>(
      `INSERT INTO daily_reward_claims (organization_id, user_id, local_date, consecutive_days, amount, claimed_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING 1`,
      [organizationId, userId, date, consecutive, amount, now],
    );
    return rows.length === 1;
  }

  async goal(userId: string): Promise<GoalRow | null> {
    const [row] = await this.dataSource.query<GoalRow[]>(
      `SELECT daily_xp, weekly_lessons FROM goals WHERE user_id = $1`,
      [userId],
    );
    return row ?? null;
  }

  async saveGoal(userId: string, change: GoalChange, at: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO goals (user_id, daily_xp, weekly_lessons, updated_at) VALUES ($1, $2, $3, $6)
       ON CONFLICT (user_id) DO UPDATE SET
         daily_xp = CASE WHEN $4 THEN EXCLUDED.daily_xp ELSE goals.daily_xp END,
         weekly_lessons = CASE WHEN $5 THEN EXCLUDED.weekly_lessons ELSE goals.weekly_lessons END,
         updated_at = EXCLUDED.updated_at`,
      [userId, change.dailyXp.value, change.weeklyLessons.value, change.dailyXp.set, change.weeklyLessons.set, at],
    );
  }

  /** The badge of a completed program (extensions-v2 16.4), once per member and program. */
  async awardProgramBadge(
    organizationId: string,
    userId: string,
    pathId: string,
    badge: { name: string; icon: string | null },
    now: Date,
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `INSERT INTO badge_awards (organization_id, user_id, path_id, name, icon, awarded_at, code, kind)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'program')
       ON CONFLICT (organization_id, user_id, path_id) DO NOTHING`,
      [organizationId, userId, pathId, badge.name, badge.icon, now, `program-${pathId}`],
    );
  }
}
