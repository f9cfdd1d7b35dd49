import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';
import { LeaderboardStore } from './leaderboard.store';

/**
 * XP (extensions-v2 17.4: deleted). The cached leaderboards of the person's organizations are dropped after the
 * erasure commits, so no cached set keeps their id.
 */
@Injectable()
@PersonalData({ area: 'gamification', key: 'xp', tables: ['xp_ledger', 'xp_totals'] })
export class XpPersonalData implements PersonalDataHandler {
  constructor(private readonly leaderboard: LeaderboardStore) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const totals = await db.query<ExportedRow[]>(
      `SELECT 'total' AS kind, organization_id, xp::int AS xp, level, updated_at FROM xp_totals WHERE user_id = $1
       ORDER BY organization_id`,
      [userId],
    );
    const rows = await db.query<ExportedRow[]>(
      `SELECT 'ledger' AS kind, organization_id, source, source_id, amount, to_char(local_date, 'YYYY-MM-DD') AS local_date,
         occurred_at, created_at
       FROM xp_ledger WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
    return [...totals, ...rows];
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    const orgs = await tx.manager.query<{ organization_id: string }[]>(
      `SELECT DISTINCT organization_id FROM xp_ledger WHERE user_id = $1`,
      [userId],
    );
    await tx.manager.query(`DELETE FROM xp_ledger WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM xp_totals WHERE user_id = $1`, [userId]);
    tx.afterCommit(async () => {
      for (const o of orgs) await this.leaderboard.invalidate(o.organization_id);
    });
  }
}

/** Streak, frozen days, activity days and goals: the person's own (17.4: deleted). */
@Injectable()
@PersonalData({
  area: 'gamification',
  key: 'activity',
  tables: ['activity_days', 'engagement_facts', 'streaks', 'streak_frozen_days', 'goals'],
})
export class ActivityPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const streak = await db.query<ExportedRow[]>(
      `SELECT 'streak' AS kind, run_count, longest, freezes, first_active_on, last_active_on, updated_at
       FROM streaks WHERE user_id = $1`,
      [userId],
    );
    const goals = await db.query<ExportedRow[]>(
      `SELECT 'goals' AS kind, daily_xp, weekly_lessons, updated_at FROM goals WHERE user_id = $1`,
      [userId],
    );
    const frozen = await db.query<ExportedRow[]>(
      `SELECT 'frozen_day' AS kind, to_char(local_date, 'YYYY-MM-DD') AS date FROM streak_frozen_days
       WHERE user_id = $1 ORDER BY local_date`,
      [userId],
    );
    const days = await db.query<ExportedRow[]>(
      `SELECT 'activity_day' AS kind, organization_id, to_char(local_date, 'YYYY-MM-DD') AS date, active, xp,
         lessons_completed, quiz_submissions, reviews, exams_submitted, games_finished, duels_finished, duels_won
       FROM activity_days WHERE user_id = $1 ORDER BY local_date, organization_id`,
      [userId],
    );
    const facts = await db.query<ExportedRow[]>(
      `SELECT 'fact' AS kind, organization_id, kind AS fact, subject_id, course_id, occurred_at FROM engagement_facts
       WHERE user_id = $1 ORDER BY occurred_at`,
      [userId],
    );
    return [...streak, ...goals, ...frozen, ...days, ...facts];
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    for (const table of ['activity_days', 'engagement_facts', 'streak_frozen_days', 'streaks', 'goals'])
      await tx.manager.query(`DELETE FROM ${table} WHERE user_id = $1`, [userId]);
  }
}

/** Daily rewards, claimed missions and chosen titles (17.4: deleted). */
@Injectable()
@PersonalData({
  area: 'gamification',
  key: 'rewards',
  tables: ['daily_reward_claims', 'mission_claims', 'member_titles'],
})
export class RewardsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const daily = await db.query<ExportedRow[]>(
      `SELECT 'daily_reward' AS kind, organization_id, to_char(local_date, 'YYYY-MM-DD') AS date, consecutive_days,
         amount, claimed_at FROM daily_reward_claims WHERE user_id = $1 ORDER BY claimed_at`,
      [userId],
    );
    const missions = await db.query<ExportedRow[]>(
      `SELECT 'mission' AS kind, organization_id, mission_id, reward_xp, claimed_at FROM mission_claims
       WHERE user_id = $1 ORDER BY claimed_at`,
      [userId],
    );
    const titles = await db.query<ExportedRow[]>(
      `SELECT 'title' AS kind, organization_id, code, chosen_at FROM member_titles WHERE user_id = $1`,
      [userId],
    );
    return [...daily, ...missions, ...titles];
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    for (const table of ['daily_reward_claims', 'mission_claims', 'member_titles'])
      await tx.manager.query(`DELETE FROM ${table} WHERE user_id = $1`, [userId]);
  }
}

/** Program and system badges, deleted on erasure (extensions-v2 17.4: badges). */
@Injectable()
@PersonalData({ area: 'gamification', key: 'badges', tables: ['badge_awards'] })
export class BadgeAwardsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT organization_id, code, kind, path_id, name, icon, awarded_at FROM badge_awards WHERE user_id = $1
       ORDER BY awarded_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM badge_awards WHERE user_id = $1`, [userId]);
  }
}

/**
 * Challenges: participation is deleted; frozen standings keep an anonymous entry (17.4); challenges the person
 * created stay with the organization and stop naming them.
 */
@Injectable()
@PersonalData({
  area: 'gamification',
  key: 'challenges',
  tables: ['challenges', 'challenge_participants', 'challenge_results'],
})
export class ChallengesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const joined = await db.query<ExportedRow[]>(
      `SELECT 'participation' AS kind, p.organization_id, p.challenge_id, p.joined_at, r.rank, r.value
       FROM challenge_participants p LEFT JOIN challenge_results r ON r.challenge_id = p.challenge_id AND r.user_id = p.user_id
       WHERE p.user_id = $1 ORDER BY p.joined_at`,
      [userId],
    );
    const created = await db.query<ExportedRow[]>(
      `SELECT 'created' AS kind, organization_id, id AS challenge_id, title, metric, starts_at, ends_at, created_at
       FROM challenges WHERE created_by = $1 ORDER BY created_at`,
      [userId],
    );
    return [...joined, ...created];
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM challenge_participants WHERE user_id = $1`, [userId]);
    await tx.manager.query(`UPDATE challenge_results SET user_id = NULL WHERE user_id = $1`, [userId]);
    await tx.manager.query(`UPDATE challenges SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}
