import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import type { Page } from '@/core/http/pagination';
import { toPage } from '@/core/http/pagination';
import type { Membership } from '@/core/auth/tenancy';
import type { Locale } from '@/core/mail/mail-template';
import { localDate } from '@/core/time/local-time';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { PeopleService } from '@/modules/tenancy/members';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import { MISSIONS } from './badge-catalog';
import type { LeaderboardDto, LeaderboardQueryDto, XpDto, XpHistoryEntryDto } from './dto/xp.dto';
import { type BoardEntry, type BoardRead, type BoardWindow, LeaderboardStore, LedgerBoards } from './leaderboard.store';
import { LedgerRepository } from './ledger.repository';
import { levelView } from './levels';
import { resolvePeriod } from './periods';

const LABELS: Record<string, Record<Locale, string>> = {
  lesson: { es: 'Lección completada', en: 'Lesson completed' },
  quiz_pass: { es: 'Cuestionario aprobado', en: 'Quiz passed' },
  course: { es: 'Curso completado', en: 'Course completed' },
  program: { es: 'Programa completado', en: 'Program completed' },
  capstone: { es: 'Proyecto final aprobado', en: 'Capstone passed' },
  exam_pass: { es: 'Examen aprobado', en: 'Exam passed' },
  review: { es: 'Repaso de tarjeta', en: 'Flashcard review' },
  game: { es: 'Partida terminada', en: 'Game finished' },
  duel: { es: 'Duelo terminado', en: 'Duel finished' },
  daily_reward: { es: 'Recompensa diaria', en: 'Daily reward' },
  mission: { es: 'Misión cumplida', en: 'Mission completed' },
  challenge: { es: 'Podio en un desafío', en: 'Challenge podium' },
};

/** XP, its history and the leaderboard of an organization (extensions-v2 3.2, 3.3, 3.5). */
@Injectable()
export class XpService {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly store: LeaderboardStore,
    private readonly boards: LedgerBoards,
    private readonly people: PeopleService,
    private readonly cohorts: CohortsService,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly clock: Clock,
  ) {}

  async xp(member: Membership): Promise<XpDto> {
    const now = this.clock.now();
    const { organizationId: org, userId } = member;
    const [zones, userZones] = await Promise.all([
      this.ledger.organizationZones([org]),
      this.ledger.userZones([userId]),
    ]);
    const zone = zones.get(org) ?? 'UTC';
    const week = resolvePeriod(org, 'week', undefined, zone, now);
    const month = resolvePeriod(org, 'month', undefined, zone, now);
    const [total, today, weekStanding, monthXp] = await Promise.all([
      this.ledger.total(org, userId),
      this.ledger.xpOnDate(userId, localDate(now, userZones.get(userId) ?? 'UTC'), org),
      this.store.standing(week, userId),
      this.ledger.xpBetween(org, userId, month.start!, month.end),
    ]);
    return {
      ...levelView(total),
      today_xp: today,
      week_xp: weekStanding.xp,
      month_xp: monthXp,
      week_rank: weekStanding.rank,
    };
  }

  /**
   * A member's XP in one organization for another area (the teacher's student view, extensions-v2 16.4): `total` is
   * `GET /me/xp`'s (the member's `xp_totals` row), `week` the XP of the current week as the weekly leaderboard
   * counts it (ISO week, Monday first, in the organization's zone; ledger rows by `created_at`), read from the
   * ledger itself rather than the leaderboard cache.
   */
  async memberXp(organizationId: string, userId: string): Promise<{ total: number; week: number }> {
    const zone = (await this.ledger.organizationZones([organizationId])).get(organizationId) ?? 'UTC';
    const week = resolvePeriod(organizationId, 'week', undefined, zone, this.clock.now());
    const [total, weekXp] = await Promise.all([
      this.ledger.total(organizationId, userId),
      this.ledger.xpBetween(organizationId, userId, week.start!, week.end),
    ]);
    return { total, week: weekXp };
  }

  async history(member: Membership, limit: number, offset: number): Promise<Page<XpHistoryEntryDto>> {
    const locale = (await this.users.getById(member.userId)).locale;
    const { rows, total } = await this.ledger.history(member.organizationId, member.userId, limit, offset);
    return toPage(
      rows.map((r) => ({
        id: r.id,
        amount: r.amount,
        source: r.source,
        source_id: r.source_id,
        label: label(r.source, r.source_id, r.subject, locale),
        created_at: new Date(r.created_at).toISOString(),
      })),
      total,
      { limit, offset },
    );
  }

  /** A cohort's leaderboard: always from the ledger (cohorts are small). */
  private async cohortRead(
    w: BoardWindow,
    userId: string,
    limit: number,
    offset: number,
    around: number | null,
    cohortId: string,
  ): Promise<BoardRead> {
    const [page, me] = await Promise.all([
      this.boards.page(w, limit, offset, cohortId),
      this.boards.standing(w, userId, cohortId),
    ]);
    let near: BoardEntry[] | null = null;
    if (around !== null) {
      const pos = around > 0 ? await this.boards.position(w, userId, cohortId) : null;
      near = pos === null ? [] : (await this.boards.page(w, 2 * around + 1, Math.max(0, pos - around), cohortId)).items;
    }
    return { ...page, me, around: near };
  }

  async leaderboard(member: Membership, query: LeaderboardQueryDto): Promise<LeaderboardDto> {
    const org = member.organizationId;
    const zone = (await this.organizations.findById(org))?.timeZone ?? 'UTC';
    const w = resolvePeriod(org, query.period, query.period_key, zone, this.clock.now());
    const cohortId = query.cohort_id ?? null;
    if (cohortId) {
      if (!(await this.cohorts.findInOrganization(org, cohortId))) throw ApiError.notFound();
      if (member.role === 'student' || member.role === 'teacher') {
        const mine = await this.cohorts.cohortIdsOf(org, member.userId);
        if (!mine.includes(cohortId)) throw ApiError.forbidden('Only people of this cohort see its leaderboard.');
      }
    }
    const around = query.around ?? null;
    const read = cohortId
      ? await this.cohortRead(w, member.userId, query.limit, query.offset, around, cohortId)
      : await this.store.read(w, member.userId, query.limit, query.offset, around);
    const { me } = read;
    const page = { items: read.items, total: read.total };
    const nearby = read.around ?? undefined;
    const persons = await this.people.asSeenBy(member, [
      ...page.items.map((e) => e.userId),
      ...(nearby ?? []).map((e) => e.userId),
    ]);
    const entry = (e: BoardEntry) => ({
      rank: e.rank,
      person: persons.get(e.userId)!,
      xp: e.xp,
      is_me: e.userId === member.userId,
    });
    return {
      items: page.items.map(entry),
      total: page.total,
      limit: query.limit,
      offset: query.offset,
      period: {
        period: w.period,
        key: w.key,
        starts_at: w.start?.toISOString() ?? null,
        ends_at: w.end?.toISOString() ?? null,
      },
      me,
      ...(nearby !== undefined ? { around: nearby.map(entry) } : {}),
    };
  }
}

function label(source: string, sourceId: string, subject: string | null, locale: Locale): string {
  const base = LABELS[source]?.[locale] ?? source;
  if (subject) return `${base}: ${subject}`;
  if (source === 'mission') {
    const code = sourceId.replace(/-(\d{4}-W\d{2}|\d{4}-\d{2}-\d{2})$/, '');
    const m = MISSIONS.find((x) => x.code === code);
    if (m) return `${base}: ${m.title[locale]}`;
  }
  if (source === 'daily_reward') return `${base}: ${sourceId}`;
  return base;
}
