import { Injectable, Logger, Optional } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { resolveLocale } from '@/core/mail/mail-template';
import { EngagementDigest } from '@/core/ports/engagement-digest';
import { JobHandler } from '@/core/queue/job-handler.decorator';
import { JobsService } from '@/core/queue/jobs.service';
import { type ScheduleContext, ScheduleHandler } from '@/core/queue/schedule';
import { isoWeekKey, localDate } from '@/core/time/local-time';
import { effectivePreferences } from './notification-categories';
import { write } from './notification-content';
import {
  DELIVER_FCM,
  DELIVER_PUSH,
  NEW_COURSE_BATCH,
  PRUNE,
  SCHEDULED_BATCH,
  STREAK_REMINDERS,
  WEEKLY_SUMMARIES,
} from './notifications.jobs';
import { NotificationPipeline } from './notification-pipeline';
import { NotificationsRealtime } from './notifications-realtime';
import { NotificationsRepository } from './notifications.repository';
import { PushService } from './push/push.service';

/** People per fan-out job (13.1). */
export const FAN_OUT_BATCH = 500;
/** Notifications are kept 180 days. */
export const RETENTION_DAYS = 180;
const DAY_MS = 86_400_000;

/** The background work of notifications: push deliveries, the new_course fan-out, the scheduled categories. */
@Injectable()
export class NotificationJobs {
  private readonly logger = new Logger('Notifications');

  constructor(
    private readonly repository: NotificationsRepository,
    private readonly pipeline: NotificationPipeline,
    private readonly push: PushService,
    private readonly jobs: JobsService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly realtime: NotificationsRealtime,
    @Optional() private readonly digest?: EngagementDigest,
  ) {}

  @JobHandler(DELIVER_PUSH)
  async deliverPush(payload: {
    subscription_id: string;
    notification_id: string | null;
    user_id: string;
  }): Promise<void> {
    await this.push.deliverWebPush(payload);
  }

  @JobHandler(DELIVER_FCM)
  async deliverFcm(payload: { device_id: string; notification_id: string | null; user_id: string }): Promise<void> {
    await this.push.deliverNative(payload);
  }

  /**
   * One batch of the new_course fan-out: the rows in one INSERT (each person's language and in-app preference),
   * then push and email only for the people whose preferences turn them on, then the next batch. The notification
   * is keyed on the publication event, so a redelivered batch inserts nothing twice.
   */
  @JobHandler(NEW_COURSE_BATCH)
  async newCourseBatch(payload: { event_id: string; course_id: string; after: string | null }): Promise<void> {
    const title = await this.repository.courseTitle(payload.course_id);
    if (title === null) return;
    const page = await this.repository.courseAudienceAfter(payload.course_id, payload.after, FAN_OUT_BATCH);
    const next = page.length === FAN_OUT_BATCH ? page[page.length - 1] : null;
    if (next) {
      // The next batch is queued before this one's rows are written, so the queue's workers run batches side by
      // side; the dedupe key keeps a redelivered batch from queuing it twice.
      await this.jobs.enqueue(
        NEW_COURSE_BATCH,
        { ...payload, after: next },
        { organizationId: null, dedupeKey: `new-course:${payload.event_id}:${next}` },
      );
    }
    await this.transactions.run(async (tx) => {
      const rows = await this.repository.insertMany(
        page,
        {
          organization_id: null,
          category: 'new_course',
          url: this.pipeline.url(`/courses/${payload.course_id}`),
          data: { course_id: payload.course_id },
          source_key: payload.event_id,
          text: {
            es: write('es', { category: 'new_course', course_title: title }),
            en: write('en', { category: 'new_course', course_title: title }),
          },
        },
        this.clock.now(),
        tx,
      );
      this.realtime.createdMany(rows, tx);
      const wanting = new Set(
        await this.repository.wantingDelivery(
          rows.map((r) => r.user_id),
          'new_course',
          tx,
        ),
      );
      if (wanting.size > 0) {
        const recipients = new Map((await this.repository.recipients([...wanting], tx)).map((r) => [r.id, r]));
        for (const row of rows) {
          const recipient = recipients.get(row.user_id);
          if (!recipient) continue;
          const pref = effectivePreferences(recipient.categories ?? {}).new_course;
          await this.pipeline.deliver(row, recipient, pref, resolveLocale(recipient.locale), tx);
        }
      }
    });
  }

  @ScheduleHandler(STREAK_REMINDERS)
  async streakReminders(ctx: ScheduleContext): Promise<void> {
    await this.startScheduled('streak_reminder', ctx.scheduledAt);
  }

  @ScheduleHandler(WEEKLY_SUMMARIES)
  async weeklySummaries(ctx: ScheduleContext): Promise<void> {
    await this.startScheduled('weekly_summary', ctx.scheduledAt);
  }

  /** Without the engagement area's port there is nothing to remind of or summarize. */
  private async startScheduled(kind: 'streak_reminder' | 'weekly_summary', at: Date): Promise<void> {
    if (!this.digest) return;
    await this.jobs.enqueue(
      SCHEDULED_BATCH,
      { kind, at: at.toISOString(), after: null },
      { organizationId: null, dedupeKey: `${kind}:${at.toISOString()}:start` },
    );
  }

  /**
   * One page of the people whose local time is in the window at the tick: streak reminders at [20:00, 20:15)
   * to those the engagement area says need one; weekly summaries on Monday [08:00, 08:15) for last week. Keys
   * `streak_reminder:<user>:<local date>` and `weekly_summary:<user>:<week>` make each happen once.
   */
  @JobHandler(SCHEDULED_BATCH)
  async scheduledBatch(payload: {
    kind: 'streak_reminder' | 'weekly_summary';
    at: string;
    after: string | null;
  }): Promise<void> {
    if (!this.digest) return;
    const at = new Date(payload.at);
    const window =
      payload.kind === 'streak_reminder'
        ? { from: '20:00', to: '20:15', isoWeekday: null }
        : { from: '08:00', to: '08:15', isoWeekday: 1 };
    const page = await this.repository.localTimeAfter(at, window, payload.after, FAN_OUT_BATCH);
    const next = page.length === FAN_OUT_BATCH ? page[page.length - 1] : null;
    const people = new Map((await this.repository.recipients(page)).map((r) => [r.id, r]));
    if (payload.kind === 'streak_reminder') {
      const due = await this.digest.needingStreakReminder(page, at);
      for (const userId of due) {
        const person = people.get(userId);
        if (!person) continue;
        await this.transactions.run((tx) =>
          this.pipeline.notify(
            {
              userId,
              organizationId: null,
              category: 'streak_reminder',
              sourceKey: `streak_reminder:${userId}:${localDate(at, person.time_zone)}`,
              path: '/',
              data: {},
              content: { category: 'streak_reminder' },
            },
            tx,
          ),
        );
      }
    } else {
      for (const userId of page) {
        const person = people.get(userId);
        if (!person) continue;
        const week = isoWeekKey(new Date(at.getTime() - 7 * DAY_MS), person.time_zone);
        const summary = await this.digest.weeklySummary(userId, week);
        if (!summary) continue;
        const orgs = await this.repository.organizations(summary.organizations.map((o) => o.organization_id));
        await this.transactions.run((tx) =>
          this.pipeline.notify(
            {
              userId,
              organizationId: null,
              category: 'weekly_summary',
              sourceKey: `weekly_summary:${userId}:${week}`,
              path: '/',
              data: {},
              content: {
                category: 'weekly_summary',
                week,
                streak: summary.streak_current,
                organizations: summary.organizations.map((o) => ({
                  name: orgs.get(o.organization_id)?.name ?? '',
                  xp: o.xp,
                  lessons: o.lessons_completed,
                  reviews: o.reviews,
                  in_progress: o.courses_in_progress,
                })),
              },
            },
            tx,
          ),
        );
      }
    }
    if (next) {
      await this.jobs.enqueue(
        SCHEDULED_BATCH,
        { ...payload, after: next },
        { organizationId: null, dedupeKey: `${payload.kind}:${payload.at}:${next}` },
      );
    }
  }

  @ScheduleHandler(PRUNE)
  async prune(): Promise<void> {
    const before = new Date(this.clock.nowMs() - RETENTION_DAYS * DAY_MS);
    let removed = 0;
    for (;;) {
      const n = await this.repository.prune(before, 5_000);
      removed += n;
      if (n < 5_000) break;
    }
    if (removed) this.logger.log({ removed }, 'Old notifications pruned');
  }
}
