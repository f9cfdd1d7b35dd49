import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { Locale } from '@/core/mail/mail-template';
import { visibleTo } from '@/modules/learning/courses';
import type { DeadlineStatus } from './dto/deadline.dto';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface DeadlineRow {
  id: string;
  organization_id: string;
  cohort_id: string;
  course_id: string;
  course_title: string;
  title: string;
  due_at: Date;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  /** For one person, when asked. */
  status?: DeadlineStatus;
}

export interface FeedRow {
  user_id: string;
  locale: Locale;
}

export interface FeedExamWindow {
  window_id: string;
  organization_id: string;
  organization_name: string;
  exam_id: string;
  exam_title: string;
  course_id: string;
  course_title: string;
  opens_at: Date;
  closes_at: Date;
  updated_at: Date;
}

export interface FeedDeadline {
  id: string;
  organization_id: string;
  organization_name: string;
  course_id: string;
  course_title: string;
  title: string;
  due_at: Date;
  updated_at: Date;
}

const COLUMNS = `d.id, d.organization_id, d.cohort_id, d.course_id, c.title AS course_title, d.title, d.due_at,
  d.created_by, d.created_at, d.updated_at`;

/** The status of a deadline for person `$user` (completed here, before `due_at`), at `$now`. */
const statusFor = (user: string, now: string): string => `CASE
    WHEN EXISTS (SELECT 1 FROM enrollments_read e WHERE e.organization_id = d.organization_id AND e.user_id = ${user}
      AND e.course_id = d.course_id AND e.completed_at IS NOT NULL AND e.completed_at < d.due_at) THEN 'done'
    WHEN d.due_at <= ${now} THEN 'overdue' ELSE 'upcoming' END AS status`;

/**
 * Cohort deadlines and calendar feeds (extensions-v2 25.2). Reads of other areas' tables, read-only: the catalog
 * rule (`catalog-sql`), enrollments (a deadline's status), cohort memberships, exam windows and organizations
 * (the feed gathers a person's dates from every organization in one query each).
 */
@Injectable()
export class DeadlinesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The title of a course of the organization's catalog, or null. */
  async catalogCourseTitle(organizationId: string, courseId: string): Promise<string | null> {
    const rows = await this.dataSource.query<{ title: string }[]>(
      `SELECT c.title FROM courses_read c WHERE c.id = $1 AND ${visibleTo('c', 2)}`,
      [courseId, organizationId],
    );
    return rows[0]?.title ?? null;
  }

  async insert(
    d: {
      organizationId: string;
      cohortId: string;
      courseId: string;
      title: string;
      dueAt: Date;
      createdBy: string;
      now: Date;
    },
    tx: Tx,
  ): Promise<string> {
    const [row] = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO cohort_deadlines (organization_id, cohort_id, course_id, title, due_at, created_by, created_at,
         updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
      [d.organizationId, d.cohortId, d.courseId, d.title, d.dueAt, d.createdBy, d.now],
    );
    return row.id;
  }

  async find(organizationId: string, cohortId: string, id: string, tx?: Tx): Promise<DeadlineRow | null> {
    const rows = await db(this.dataSource, tx).query<DeadlineRow[]>(
      `SELECT ${COLUMNS} FROM cohort_deadlines d JOIN courses_read c ON c.id = d.course_id
       WHERE ${orgEq(1, 'd')} AND d.cohort_id = $2 AND d.id = $3`,
      [organizationId, cohortId, id],
    );
    return rows[0] ?? null;
  }

  async update(id: string, title: string, dueAt: Date, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE cohort_deadlines SET title = $2, due_at = $3, updated_at = $4 WHERE id = $1`,
      [id, title, dueAt, now],
    );
  }

  async delete(id: string, tx: Tx): Promise<void> {
    await tx.manager.query(`${tenancyExempt('by-key-after-scoped-read')} DELETE FROM cohort_deadlines WHERE id = $1`, [
      id,
    ]);
  }

  /** A cohort's deadlines by `due_at`; with `forUser`, each with that person's status. */
  async ofCohort(organizationId: string, cohortId: string, forUser: string | null, now: Date): Promise<DeadlineRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS}${forUser ? `, ${statusFor('$3', '$4')}` : ''}
       FROM cohort_deadlines d JOIN courses_read c ON c.id = d.course_id
       WHERE ${orgEq(1, 'd')} AND d.cohort_id = $2 ORDER BY d.due_at, d.id`,
      forUser ? [organizationId, cohortId, forUser, now] : [organizationId, cohortId],
    );
  }

  /**
   * The deadlines of every cohort the person belongs to in the organization, with their status; `range.from` is
   * the first instant in, `range.to` the first instant out (the start of the local day after the last one).
   */
  async ofMember(
    organizationId: string,
    userId: string,
    range: { from: Date | null; to: Date | null },
    now: Date,
  ): Promise<DeadlineRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS}, ${statusFor('$2', '$5')}
       FROM cohort_deadlines d JOIN courses_read c ON c.id = d.course_id
       WHERE ${orgEq(1, 'd')}
         AND d.cohort_id IN (SELECT cohort_id FROM cohort_members_read WHERE ${orgEq(1)} AND user_id = $2)
         AND ($3::timestamptz IS NULL OR d.due_at >= $3) AND ($4::timestamptz IS NULL OR d.due_at < $4)
       ORDER BY d.due_at, d.id`,
      [organizationId, userId, range.from, range.to, now],
    );
  }

  // Calendar feeds.

  /** Creates or replaces the person's feed (the old token stops working). */
  async putFeed(userId: string, tokenHash: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO calendar_feeds (user_id, token_hash, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, created_at = EXCLUDED.created_at,
         last_fetched_at = NULL`,
      [userId, tokenHash, now],
    );
  }

  async feedOf(userId: string): Promise<{ created_at: Date; last_fetched_at: Date | null } | null> {
    const rows = await this.dataSource.query<{ created_at: Date; last_fetched_at: Date | null }[]>(
      `SELECT created_at, last_fetched_at FROM calendar_feeds WHERE user_id = $1`,
      [userId],
    );
    return rows[0] ?? null;
  }

  async deleteFeed(userId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM calendar_feeds WHERE user_id = $1`, [userId]);
  }

  /** The feed of a token (by its hash) and its owner's language; records the fetch. */
  async fetchFeed(tokenHash: string, now: Date): Promise<FeedRow | null> {
    const [rows] = await this.dataSource.query<[FeedRow[], number]>(
      `UPDATE calendar_feeds f SET last_fetched_at = $2 FROM users_read u
       WHERE f.token_hash = $1 AND u.id = f.user_id AND u.erased_at IS NULL
       RETURNING f.user_id, u.locale`,
      [tokenHash, now],
    );
    return rows[0] ?? null;
  }

  /**
   * Exam windows with a closing time that apply to the person (organization-wide ones, and those of the cohorts
   * they study in) in every organization they belong to, overlapping [from, to], of published exams.
   */
  async feedExamWindows(userId: string, from: Date, to: Date): Promise<FeedExamWindow[]> {
    return this.dataSource.query(
      `${tenancyExempt('person-across-organizations')} SELECT w.id AS window_id, w.organization_id, o.name AS organization_name, x.id AS exam_id, x.title AS exam_title,
         c.id AS course_id, c.title AS course_title, w.opens_at, w.closes_at, w.updated_at
       FROM exam_windows_read w
       JOIN memberships_read m ON m.organization_id = w.organization_id AND m.user_id = $1
       JOIN organizations_read o ON o.id = w.organization_id
       JOIN exams_read x ON x.id = w.exam_id AND x.status = 'published'
       JOIN courses_read c ON c.id = x.course_id
       WHERE w.closes_at IS NOT NULL AND w.closes_at >= $2 AND w.opens_at <= $3
         AND (w.cohort_id IS NULL OR EXISTS (SELECT 1 FROM cohort_members_read cm WHERE cm.organization_id = w.organization_id
           AND cm.cohort_id = w.cohort_id AND cm.user_id = $1 AND cm.role = 'student'))
       ORDER BY w.opens_at, w.id`,
      [userId, from, to],
    );
  }

  /** The deadlines of every cohort the person belongs to, in every organization, due in [from, to]. */
  async feedDeadlines(userId: string, from: Date, to: Date): Promise<FeedDeadline[]> {
    return this.dataSource.query(
      `${tenancyExempt('person-across-organizations')} SELECT d.id, d.organization_id, o.name AS organization_name, d.course_id, c.title AS course_title, d.title,
         d.due_at, d.updated_at
       FROM cohort_deadlines d
       JOIN cohort_members_read cm ON cm.cohort_id = d.cohort_id AND cm.user_id = $1
       JOIN organizations_read o ON o.id = d.organization_id
       JOIN courses_read c ON c.id = d.course_id
       WHERE d.due_at >= $2 AND d.due_at <= $3
       ORDER BY d.due_at, d.id`,
      [userId, from, to],
    );
  }
}
