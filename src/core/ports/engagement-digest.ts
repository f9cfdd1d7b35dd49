/**
 * What the notifications area needs from the engagement area for its two scheduled categories (extensions-v2
 * 13.1): streak reminders and weekly summaries. Declared here, beside the other ports of the core, so neither area
 * imports the other's internals: gamification provides it (`{ provide: EngagementDigest, useExisting: ... }`),
 * notifications injects it (optionally: without it, those two schedules send nothing).
 */

/** One organization's figures of the past ISO week, for the weekly summary email and in-app item. */
export interface WeeklySummaryOrganization {
  readonly organization_id: string;
  readonly xp: number;
  readonly lessons_completed: number;
  readonly reviews: number;
  /** Enrollments not completed, with activity in the 4 previous weeks. */
  readonly courses_in_progress: number;
}

export interface WeeklySummary {
  readonly user_id: string;
  /** The ISO week summarized (`2026-W47`), in the person's zone: the week before the one that just began. */
  readonly week: string;
  readonly streak_current: number;
  readonly organizations: readonly WeeklySummaryOrganization[];
}

export abstract class EngagementDigest {
  /**
   * Of these people, those who get a streak reminder at `at`: streak of at least one day, and no activity yet on
   * their local date of `at` (extensions-v2 3.4 and 13.1).
   */
  abstract needingStreakReminder(userIds: readonly string[], at: Date): Promise<string[]>;

  /**
   * The summary of the ISO week `week` for the person, or null when they were not active (3.4) in the 4 weeks
   * before the week that just began (they get no summary).
   */
  abstract weeklySummary(userId: string, week: string): Promise<WeeklySummary | null>;
}
