import { Injectable, Logger } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { defineJob } from '@/core/queue/job-definition';
import { type JobContext, JobHandler } from '@/core/queue/job-handler.decorator';
import { JobsService } from '@/core/queue/jobs.service';
import { defineSchedule, ScheduleHandler } from '@/core/queue/schedule';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { CatalogService } from '@/modules/learning/courses';
import { PeopleService } from '@/modules/tenancy/members';
import { type ChallengeRow, ChallengesRepository, type StandingRow } from './challenges.repository';
import type {
  ChallengeDto,
  ChallengeListQueryDto,
  CreateChallengeDto,
  StandingDto,
  UpdateChallengeDto,
} from './dto/challenge.dto';
import { XpLedgerService } from './xp-ledger.service';

export const FINISH_CHALLENGES = defineSchedule({ name: 'gamification.finish_challenges', cron: '* * * * *' });

/**
 * Finishes one challenge at its `ends_at`: queued at creation and whenever `ends_at` changes (dedupe key with the
 * end), so it exists once per end; a job for an end that moved later finds nothing due and does nothing.
 */
export const FINISH_CHALLENGE = defineJob<{ challenge_id: string }>({
  name: 'gamification.finish_challenge',
  queue: 'default',
  attempts: 5,
  backoffMs: 2_000,
});

const REWARDS = [100, 60, 30] as const;
const MAX_OPEN = 20;
const MAX_DAYS = 90;
const DAY_MS = 86_400_000;

type Status = 'upcoming' | 'active' | 'finished';

/** Time-boxed challenges of an organization or a cohort (extensions-v2 5.6). */
@Injectable()
export class ChallengesService {
  private readonly logger = new Logger('Challenges');

  constructor(
    private readonly challenges: ChallengesRepository,
    private readonly cohorts: CohortsService,
    private readonly catalog: CatalogService,
    private readonly people: PeopleService,
    private readonly xp: XpLedgerService,
    private readonly events: DomainEvents,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
  ) {}

  private async scheduleFinish(organizationId: string, id: string, endsAt: Date, tx: Tx): Promise<void> {
    await this.jobs.enqueue(
      FINISH_CHALLENGE,
      { challenge_id: id },
      {
        organizationId,
        tx,
        delayMs: Math.max(0, endsAt.getTime() - this.clock.nowMs()),
        dedupeKey: `gamification.finish_challenge:${id}:${endsAt.getTime()}`,
      },
    );
  }

  @JobHandler(FINISH_CHALLENGE)
  async finishJob(payload: { challenge_id: string }, ctx: JobContext): Promise<void> {
    // Tenancy as a request would check it: the challenge is looked up in the job's organization only.
    if (!ctx.organizationId) return;
    await this.finish(ctx.organizationId, payload.challenge_id);
  }

  private status(c: ChallengeRow, now: Date): Status {
    if (c.finished_at || now >= new Date(c.ends_at)) return 'finished';
    return now < new Date(c.starts_at) ? 'upcoming' : 'active';
  }

  /** Cohorts whose challenges the member sees (null: every one, for owner/admin). */
  private async visibleCohorts(member: Membership): Promise<string[] | null> {
    if (isAdmin(member.role)) return null;
    return this.cohorts.cohortIdsOf(member.organizationId, member.userId);
  }

  /** The challenge if the member sees it (applying its end first when it is due), else 404. */
  private async visible(member: Membership, id: string): Promise<ChallengeRow> {
    let c = await this.challenges.find(member.organizationId, id);
    if (!c) throw ApiError.notFound();
    if (c.cohort_id) {
      const cohorts = await this.visibleCohorts(member);
      if (cohorts && !cohorts.includes(c.cohort_id)) throw ApiError.notFound();
    }
    if (!c.finished_at && this.clock.now() >= new Date(c.ends_at)) {
      await this.finish(c.organization_id, c.id);
      c = (await this.challenges.find(member.organizationId, id))!;
    }
    return c;
  }

  private async standings(c: ChallengeRow, tx?: Tx): Promise<StandingRow[]> {
    if (c.finished_at) return this.challenges.frozenStandings(c.id, tx);
    const now = this.clock.now();
    const until = now < new Date(c.ends_at) ? now : new Date(c.ends_at);
    if (until <= new Date(c.starts_at)) return this.challenges.liveStandings(c, new Date(c.starts_at), tx);
    return this.challenges.liveStandings(c, until, tx);
  }

  private async toDto(member: Membership, c: ChallengeRow, joined: boolean, withTop: boolean): Promise<ChallengeDto> {
    const standings = await this.standings(c);
    const mine = standings.find((s) => s.user_id === member.userId);
    const top = withTop ? standings.slice(0, 10) : [];
    const persons = await this.people.asSeenBy(member, [
      ...(c.created_by ? [c.created_by] : []),
      ...top.filter((s) => s.user_id).map((s) => s.user_id!),
    ]);
    const anonymous = { user_id: null, username: null, name: null, avatar_svg_url: null, anonymous: true };
    return {
      id: c.id,
      title: c.title,
      description_md: c.description_md,
      metric: c.metric,
      course_id: c.course_id,
      cohort_id: c.cohort_id,
      starts_at: new Date(c.starts_at).toISOString(),
      ends_at: new Date(c.ends_at).toISOString(),
      status: this.status(c, this.clock.now()),
      created_by: c.created_by ? persons.get(c.created_by)! : anonymous,
      participants_count: c.participants_count,
      joined,
      my: mine ? { rank: mine.rank, value: mine.value } : null,
      rewards: [...REWARDS],
      ...(withTop
        ? {
            top: top.map((s) => ({
              rank: s.rank,
              person: s.user_id ? persons.get(s.user_id)! : anonymous,
              value: s.value,
              is_me: s.user_id === member.userId,
            })),
          }
        : {}),
    };
  }

  async list(member: Membership, query: ChallengeListQueryDto): Promise<Page<ChallengeDto>> {
    const now = this.clock.now();
    const { rows, total } = await this.challenges.list(
      member.organizationId,
      await this.visibleCohorts(member),
      query.status,
      now,
      query.limit,
      query.offset,
    );
    for (const c of rows.filter((r) => !r.finished_at && now >= new Date(r.ends_at)))
      await this.finish(c.organization_id, c.id);
    const joined = await this.challenges.joinedAmong(
      member.userId,
      rows.map((r) => r.id),
    );
    const items: ChallengeDto[] = [];
    for (const r of rows) {
      const c = r.finished_at || now < new Date(r.ends_at) ? r : (await this.challenges.find(r.organization_id, r.id))!;
      items.push(await this.toDto(member, c, joined.has(c.id), false));
    }
    return toPage(items, total, query);
  }

  async get(member: Membership, id: string): Promise<ChallengeDto> {
    const c = await this.visible(member, id);
    const joined = await this.challenges.joinedAmong(member.userId, [c.id]);
    return this.toDto(member, c, joined.has(c.id), true);
  }

  async standingsPage(member: Membership, id: string, limit: number, offset: number): Promise<Page<StandingDto>> {
    const c = await this.visible(member, id);
    const all = await this.standings(c);
    const page = all.slice(offset, offset + limit);
    const persons = await this.people.asSeenBy(
      member,
      page.filter((s) => s.user_id).map((s) => s.user_id!),
    );
    const anonymous = { user_id: null, username: null, name: null, avatar_svg_url: null, anonymous: true };
    return toPage(
      page.map((s) => ({
        rank: s.rank,
        person: s.user_id ? persons.get(s.user_id)! : anonymous,
        value: s.value,
        is_me: s.user_id === member.userId,
      })),
      all.length,
      { limit, offset },
    );
  }

  /** Who may create or target a cohort: owner/admin any; a teacher only a cohort they teach. */
  private async checkCohort(member: Membership, cohortId: string | null): Promise<void> {
    if (cohortId === null) {
      if (!isAdmin(member.role)) throw ApiError.forbidden('Teachers create challenges for a cohort they teach.');
      return;
    }
    if (!(await this.cohorts.findInOrganization(member.organizationId, cohortId))) throw ApiError.notFound();
    if (!isAdmin(member.role) && !(await this.cohorts.isTeacherOf(member.organizationId, cohortId, member.userId)))
      throw ApiError.forbidden('Teachers create challenges for a cohort they teach.');
  }

  private async checkCourse(member: Membership, metric: string, courseId: string | null): Promise<void> {
    if (courseId === null) return;
    if (metric !== 'lessons_completed')
      throw ApiError.validation([
        { field: 'course_id', message: 'course_id is only for the lessons_completed metric' },
      ]);
    if (!(await this.catalog.isVisible(member.organizationId, courseId)))
      throw ApiError.validation([
        { field: 'course_id', message: "course_id is not a course of the organization's catalog" },
      ]);
  }

  private checkTimes(startsAt: Date, endsAt: Date, now: Date, startsChanged: boolean): void {
    const problems: { field: string; message: string }[] = [];
    if (startsChanged && startsAt < now)
      problems.push({ field: 'starts_at', message: 'starts_at must not be in the past' });
    if (endsAt <= startsAt) problems.push({ field: 'ends_at', message: 'ends_at must be after starts_at' });
    else if (endsAt.getTime() - startsAt.getTime() > MAX_DAYS * DAY_MS)
      problems.push({ field: 'ends_at', message: `ends_at must be at most ${MAX_DAYS} days after starts_at` });
    if (problems.length) throw ApiError.validation(problems);
  }

  async create(member: Membership, dto: CreateChallengeDto, ip: string | undefined): Promise<ChallengeDto> {
    const now = this.clock.now();
    const cohortId = dto.cohort_id ?? null;
    const courseId = dto.course_id ?? null;
    await this.checkCohort(member, cohortId);
    await this.checkCourse(member, dto.metric, courseId);
    this.checkTimes(dto.starts_at, dto.ends_at, now, true);
    const id = await this.transactions.run(async (tx) => {
      if ((await this.challenges.countOpen(member.organizationId, now, tx)) >= MAX_OPEN)
        throw ApiError.conflict('challenge_limit_reached', `At most ${MAX_OPEN} upcoming or active challenges.`);
      const created = await this.challenges.insert(
        {
          organization_id: member.organizationId,
          cohort_id: cohortId,
          title: dto.title,
          description_md: dto.description_md ?? '',
          metric: dto.metric,
          course_id: courseId,
          starts_at: dto.starts_at,
          ends_at: dto.ends_at,
          created_by: member.userId,
        },
        now,
        tx,
      );
      await this.auditChallenge('challenge.created', member, created, cohortId, ip, tx);
      await this.scheduleFinish(member.organizationId, created, dto.ends_at, tx);
      return created;
    });
    return this.get(member, id);
  }

  private async editable(member: Membership, id: string): Promise<ChallengeRow> {
    const c = await this.visible(member, id);
    if (!isAdmin(member.role) && c.created_by !== member.userId)
      throw ApiError.forbidden('Only its creator or an owner or admin may change a challenge.');
    return c;
  }

  async update(member: Membership, id: string, dto: UpdateChallengeDto, ip: string | undefined): Promise<ChallengeDto> {
    const now = this.clock.now();
    const c = await this.editable(member, id);
    const status = this.status(c, now);
    const has = (k: keyof UpdateChallengeDto): boolean => dto[k] !== undefined;
    const structural = (['metric', 'course_id', 'cohort_id', 'starts_at'] as const).filter(has);
    if (structural.length > 0 && status !== 'upcoming')
      throw ApiError.conflict('challenge_started', 'Metric, course, cohort and start change only before the start.');
    if (has('ends_at') && status === 'finished')
      throw ApiError.conflict('challenge_finished', 'The challenge is finished.');
    const metric = dto.metric ?? c.metric;
    const courseId = dto.course_id !== undefined ? dto.course_id : metric === 'lessons_completed' ? c.course_id : null;
    const cohortId = dto.cohort_id !== undefined ? dto.cohort_id : c.cohort_id;
    if (has('cohort_id')) await this.checkCohort(member, cohortId);
    if (has('course_id') || has('metric')) await this.checkCourse(member, metric, courseId);
    const startsAt = dto.starts_at ?? new Date(c.starts_at);
    const endsAt = dto.ends_at ?? new Date(c.ends_at);
    if (has('ends_at') && endsAt <= now)
      throw ApiError.validation([{ field: 'ends_at', message: 'ends_at must be after now' }]);
    if (has('starts_at') || has('ends_at')) this.checkTimes(startsAt, endsAt, now, has('starts_at'));
    await this.transactions.run(async (tx) => {
      const locked = await this.challenges.lock(member.organizationId, id, tx);
      if (!locked) throw ApiError.notFound();
      if (locked.finished_at && (has('ends_at') || structural.length > 0))
        throw ApiError.conflict('challenge_finished', 'The challenge is finished.');
      await this.challenges.update(
        id,
        {
          ...(has('title') ? { title: dto.title } : {}),
          ...(has('description_md') ? { description_md: dto.description_md } : {}),
          ...(has('metric') ? { metric } : {}),
          ...(has('metric') || has('course_id') ? { course_id: courseId } : {}),
          ...(has('cohort_id') ? { cohort_id: cohortId } : {}),
          ...(has('starts_at') ? { starts_at: startsAt } : {}),
          ...(has('ends_at') ? { ends_at: endsAt } : {}),
        },
        now,
        tx,
      );
      await this.auditChallenge('challenge.updated', member, id, cohortId, ip, tx);
      if (has('ends_at')) await this.scheduleFinish(member.organizationId, id, endsAt, tx);
    });
    return this.get(member, id);
  }

  async remove(member: Membership, id: string, ip: string | undefined): Promise<void> {
    const c = await this.editable(member, id);
    if (this.status(c, this.clock.now()) !== 'upcoming')
      throw ApiError.conflict('challenge_started', 'A challenge can be deleted only before it starts.');
    await this.transactions.run(async (tx) => {
      await this.challenges.delete(id, tx);
      await this.auditChallenge('challenge.deleted', member, id, c.cohort_id, ip, tx);
    });
  }

  async join(member: Membership, id: string): Promise<{ created: boolean; challenge: ChallengeDto }> {
    const c = await this.visible(member, id);
    if (this.status(c, this.clock.now()) === 'finished')
      throw ApiError.conflict('challenge_finished', 'The challenge is finished.');
    const created = await this.transactions.run((tx) => this.challenges.join(c, member.userId, this.clock.now(), tx));
    return { created, challenge: await this.get(member, id) };
  }

  async leave(member: Membership, id: string): Promise<void> {
    const c = await this.visible(member, id);
    if (this.status(c, this.clock.now()) === 'finished')
      throw ApiError.conflict('challenge_finished', 'The challenge is finished.');
    const left = await this.transactions.run((tx) => this.challenges.leave(c.id, member.userId, tx));
    if (!left) throw ApiError.notFound();
  }

  /**
   * Freezes the standings of a challenge past its end, awards the podium (ranks 1..3 with a value above 0; ties
   * share their rank's reward) and `challenge_podium`, and publishes `challenge.finished`. Once, whoever calls.
   */
  async finish(organizationId: string, id: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const c = await this.challenges.lock(organizationId, id, tx);
      if (!c || c.finished_at || this.clock.now() < new Date(c.ends_at)) return;
      const standings = await this.challenges.liveStandings(c, new Date(c.ends_at), tx);
      if (!(await this.challenges.markFinished(c.id, this.clock.now(), tx))) return;
      await this.challenges.saveResults(c.id, standings, tx);
      const podium = standings.filter((s) => s.rank <= 3 && s.value > 0 && s.user_id);
      const rows = await this.xp.apply(tx, {
        awards: podium.map((s) => ({
          organizationId: c.organization_id,
          userId: s.user_id!,
          source: 'challenge' as const,
          sourceId: c.id,
          amount: REWARDS[s.rank - 1],
          occurredAt: new Date(c.ends_at),
        })),
        activity: [],
        badges: podium.map((s) => ({
          organizationId: c.organization_id,
          userId: s.user_id!,
          code: 'challenge_podium',
        })),
      });
      void rows;
      await this.events.publish(
        tx,
        'challenge.finished',
        { challenge_id: c.id },
        {
          organizationId: c.organization_id,
          actorId: null,
          occurredAt: new Date(c.ends_at),
        },
      );
    });
  }

  @ScheduleHandler(FINISH_CHALLENGES)
  async finishDue(): Promise<void> {
    const due = await this.challenges.due(this.clock.now(), 100);
    for (const c of due) await this.finish(c.organization_id, c.id);
    if (due.length) this.logger.log({ finished: due.length }, 'Challenges finished');
  }

  private async auditChallenge(
    action: string,
    member: Membership,
    id: string,
    cohortId: string | null,
    ip: string | undefined,
    tx: Tx,
  ): Promise<void> {
    await this.audit.record(
      {
        action,
        actorId: member.userId,
        organizationId: member.organizationId,
        targetType: 'challenge',
        targetId: id,
        ip,
        metadata: { cohort_id: cohortId },
      },
      tx,
    );
  }
}
