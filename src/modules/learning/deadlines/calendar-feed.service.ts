import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import ical, { ICalAlarmType, ICalCalendarMethod } from 'ical-generator';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import type { Locale } from '@/core/mail/mail-template';
import type { CalendarFeedCreatedDto, CalendarFeedStatusDto } from './dto/deadline.dto';
import { DeadlinesRepository } from './deadlines.repository';

const DAY_MS = 24 * 3_600_000;
/** The feed covers 30 days back and 180 days ahead. */
const BACK_MS = 30 * DAY_MS;
const AHEAD_MS = 180 * DAY_MS;
/** 32 random bytes, base64url: 43 characters. */
export const FEED_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const TEXT: Record<Locale, { name: string; exam: string; due: string }> = {
  es: { name: 'Learning Platform: fechas', exam: 'Examen', due: 'Entrega' },
  en: { name: 'Learning Platform: dates', exam: 'Exam', due: 'Due' },
};

export interface RenderedFeed {
  body: string;
  etag: string;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The personal calendar feed (extensions-v2 25.2): a capability address `{base_url}/api/v1/calendar/<token>.ics`
 * (32 random bytes, base64url, stored as SHA-256; one per person, a new one voids the old) serving RFC 5545 built
 * by `ical-generator`: exam windows with a closing time, cohort deadlines (with a one-day alarm), from every
 * organization of the person, 30 days back to 180 days ahead, in UTC.
 */
@Injectable()
export class CalendarFeedService {
  private readonly host: string;

  constructor(
    private readonly repository: DeadlinesRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.host = new URL(config.baseUrl).hostname;
  }

  async status(userId: string): Promise<CalendarFeedStatusDto> {
    const feed = await this.repository.feedOf(userId);
    return {
      active: feed !== null,
      created_at: feed ? feed.created_at.toISOString() : null,
      last_fetched_at: feed?.last_fetched_at ? feed.last_fetched_at.toISOString() : null,
    };
  }

  async create(userId: string): Promise<CalendarFeedCreatedDto> {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.repository.putFeed(userId, hashToken(token), now);
    return { url: `${this.config.baseUrl}/api/v1/calendar/${token}.ics`, created_at: now.toISOString() };
  }

  async remove(userId: string): Promise<void> {
    await this.repository.deleteFeed(userId);
  }

  /** The calendar of a token; 404 for an unknown or revoked one. */
  async render(token: string): Promise<RenderedFeed> {
    const now = this.clock.now();
    const feed = FEED_TOKEN_PATTERN.test(token) ? await this.repository.fetchFeed(hashToken(token), now) : null;
    if (!feed) throw ApiError.notFound('No such calendar.');
    const from = new Date(now.getTime() - BACK_MS);
    const to = new Date(now.getTime() + AHEAD_MS);
    const [windows, deadlines] = await Promise.all([
      this.repository.feedExamWindows(feed.user_id, from, to),
      this.repository.feedDeadlines(feed.user_id, from, to),
    ]);
    const text = TEXT[feed.locale] ?? TEXT.es;
    const calendar = ical({
      name: text.name,
      prodId: { company: 'Learning Platform', product: 'Deadlines', language: 'ES' },
      method: ICalCalendarMethod.PUBLISH,
    });
    for (const w of windows) {
      calendar.createEvent({
        id: `exam-${w.window_id}@${this.host}`,
        start: w.opens_at,
        end: w.closes_at,
        stamp: w.updated_at,
        summary: `${text.exam}: ${w.exam_title}`,
        description: `${w.course_title} · ${w.organization_name}`,
        url: `${this.config.webUrl}/organizations/${w.organization_id}/exams/${w.exam_id}`,
      });
    }
    for (const d of deadlines) {
      const summary = `${text.due}: ${d.title}`;
      const event = calendar.createEvent({
        id: `deadline-${d.id}@${this.host}`,
        start: d.due_at,
        end: d.due_at,
        stamp: d.updated_at,
        summary,
        description: `${d.course_title} · ${d.organization_name}`,
        url: `${this.config.webUrl}/organizations/${d.organization_id}/courses/${d.course_id}`,
      });
      event.createAlarm({ type: ICalAlarmType.display, trigger: DAY_MS / 1000, description: summary });
    }
    const body = calendar.toString();
    return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
  }
}
