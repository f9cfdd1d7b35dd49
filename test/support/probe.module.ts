/*
 * Test-only routes and jobs that exercise the core machinery (envelope, validation, limits, queue) the way
 * an area would. Mounted beside the application by createTestApp({ imports: [ProbeModule] }).
 */
import { Body, Controller, Get, Injectable, Module, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { IsInt, IsString, Length, Max, Min } from 'class-validator';
import { DataSource } from 'typeorm';
import { Public } from '@/core/auth/access.decorators';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import type { DomainEvent } from '@/core/events/event-catalog';
import { type DeliveryContext, OnDomainEvent } from '@/core/events/on-domain-event.decorator';
import { ApiError } from '@/core/http/api-error';
import { defineJob } from '@/core/queue/job-definition';
import { JobHandler, type JobContext } from '@/core/queue/job-handler.decorator';
import { JobsService } from '@/core/queue/jobs.service';
import { defineSchedule, type ScheduleContext, ScheduleHandler } from '@/core/queue/schedule';
import { OwnBudget } from '@/core/budgets/budgets';
import { RateLimit } from '@/core/rate-limit/rate-limit';

export const PROBE_JOB = defineJob<{ key: string; failTimes: number }>({
  name: 'probe.record',
  attempts: 4,
  backoffMs: 50,
});
export const PROBE_SECRET_JOB = defineJob<{ secret: string }>({
  name: 'probe.secret',
  sensitive: true,
  attempts: 2,
  backoffMs: 50,
});
export const PROBE_SLOW_JOB = defineJob<{ key: string }>({ name: 'probe.slow', attempts: 1 });
/**
 * Due on Mondays at 03:07 and 03:08 UTC only: the scheduler's tests move the Clock there, and the real minute ticks
 * of other suites (which read their own Clock) practically never meet it.
 */
export const PROBE_SCHEDULE = defineSchedule({ name: 'probe.weekly', cron: '7-8 3 * * 1' });

/** Shared, observable state of the probe handlers. */
export const probeState = {
  runs: new Map<string, number>(),
  done: new Map<string, JobContext>(),
  secrets: [] as string[],
  release: undefined as undefined | (() => void),
  /** Events seen by the probe subscriber, and how many of its tries should throw first. */
  events: [] as DomainEvent<'course.rated'>[],
  eventFailures: 0,
  eventTries: 0,
  /** The ledger subscriber's effects it applied (event ids), and an optional one-shot hold inside its handler. */
  ledgerApplied: [] as string[],
  ledgerHold: undefined as undefined | LedgerHold,
  slowStarted: undefined as undefined | (() => void),
  /** Runs of the probe schedule, in order. */
  scheduled: [] as ScheduleContext[],
};

/**
 * Makes the next `remaining` ledger deliveries stop inside their transaction, after writing their effect: `started`
 * is called, then the handler waits for `release`.
 */
export interface LedgerHold {
  remaining: number;
  started: () => void;
  release: Promise<void>;
}

/** The table the ledger subscriber writes its effect to; created by the tests that need it. */
export const PROBE_EFFECTS_DDL = `CREATE TABLE IF NOT EXISTS probe_effects (
  event_id uuid NOT NULL, subscriber text NOT NULL, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())`;

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

class ProbeBody {
  @IsString() @Length(1, 5) name!: string;
  @IsInt() @Min(0) @Max(10) count!: number;
}

@Injectable()
export class ProbeHandlers {
  @JobHandler(PROBE_JOB)
  async record(payload: { key: string; failTimes: number }, ctx: JobContext): Promise<void> {
    const runs = (probeState.runs.get(payload.key) ?? 0) + 1;
    probeState.runs.set(payload.key, runs);
    if (runs <= payload.failTimes) throw new Error(`planned failure ${runs}`);
    probeState.done.set(payload.key, ctx);
    return Promise.resolve();
  }

  @JobHandler(PROBE_SECRET_JOB)
  async secret(payload: { secret: string }): Promise<void> {
    probeState.secrets.push(payload.secret);
    return Promise.resolve();
  }

  @JobHandler(PROBE_SLOW_JOB)
  async slow(payload: { key: string }): Promise<void> {
    const gate = deferred();
    probeState.release = gate.resolve;
    probeState.slowStarted?.();
    await gate.promise;
    probeState.done.set(payload.key, { jobId: '', attempt: 1, organizationId: null });
  }
}

@Injectable()
export class ProbeSchedule {
  @ScheduleHandler(PROBE_SCHEDULE)
  async run(ctx: ScheduleContext): Promise<void> {
    probeState.scheduled.push(ctx);
    return Promise.resolve();
  }
}

/** A subscriber of a real catalog event, for the event machinery's own tests (ids `probe.*` stay out of the docs). */
@Injectable()
export class ProbeSubscriber {
  @OnDomainEvent('course.rated', { id: 'probe.course_rated', maxAttempts: 3 })
  async onRated(event: DomainEvent<'course.rated'>, ctx: DeliveryContext): Promise<void> {
    probeState.eventTries++;
    if (probeState.eventFailures > 0) {
      probeState.eventFailures--;
      throw new Error('planned subscriber failure');
    }
    await ctx.tx.manager.query('SELECT 1');
    probeState.events.push(event);
  }
}

/**
 * A second subscriber of the same event, whose effect is a row in a real table (`probe_effects`, written through
 * the delivery's transaction): a redelivery that applied it twice would show as two rows. In databases without the
 * table it does nothing.
 */
@Injectable()
export class ProbeLedgerSubscriber {
  @OnDomainEvent('course.rated', { id: 'probe.course_rated_ledger', maxAttempts: 3 })
  async onRated(event: DomainEvent<'course.rated'>, ctx: DeliveryContext): Promise<void> {
    const [{ present }] = await ctx.tx.manager.query<{ present: boolean }[]>(
      `SELECT to_regclass('probe_effects') IS NOT NULL AS present`,
    );
    if (!present) return;
    await ctx.tx.manager.query(`INSERT INTO probe_effects (event_id, subscriber) VALUES ($1, $2)`, [
      event.id,
      ctx.subscriber,
    ]);
    const hold = probeState.ledgerHold;
    if (hold && hold.remaining > 0) {
      hold.remaining--;
      hold.started();
      await hold.release;
    }
    probeState.ledgerApplied.push(event.id);
  }
}

const slowGate = { current: deferred(), started: deferred() };
export function resetSlowRoute(): { started: Promise<void>; release: () => void } {
  slowGate.current = deferred();
  slowGate.started = deferred();
  return { started: slowGate.started.promise, release: slowGate.current.resolve };
}

@Public()
@Controller('_probe')
export class ProbeController {
  constructor(
    private readonly jobs: JobsService,
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    private readonly events: DomainEvents,
  ) {}

  /**
   * Publishes `course.rated` (`count` times, default once) in a transaction that commits, or rolls back after
   * publishing (`fail`).
   */
  @Post('publish')
  @ApiOperation({ summary: 'probe' })
  async publish(
    @Body() body: { user_id: string; course_id: string; fail?: boolean; count?: number },
  ): Promise<{ id: string; ids: string[] }> {
    return this.transactions.run(async (tx) => {
      const ids: string[] = [];
      for (let i = 0; i < (body.count ?? 1); i++) {
        ids.push(
          await this.events.publish(
            tx,
            'course.rated',
            { user_id: body.user_id, course_id: body.course_id, stars: 5 },
            { organizationId: null, actorId: body.user_id },
          ),
        );
      }
      if (body.fail) throw ApiError.conflict('conflict', 'Rolled back on purpose.');
      return { id: ids[0], ids };
    });
  }

  @Post('validate')
  @ApiOperation({ summary: 'probe' })
  validate(@Body() body: ProbeBody): ProbeBody {
    return body;
  }

  @Get('boom')
  @ApiOperation({ summary: 'probe' })
  boom(): never {
    throw new Error('password=hunter2 at SELECT secret FROM vault');
  }

  @Get('db-error')
  @ApiOperation({ summary: 'probe' })
  async dbError(): Promise<unknown> {
    return this.dataSource.query('SELECT secret_column FROM no_such_table');
  }

  @Get('conflict')
  @ApiOperation({ summary: 'probe' })
  conflict(): never {
    throw ApiError.conflict('conflict', 'It conflicts.');
  }

  @Get('limited')
  @ApiOperation({ summary: 'probe' })
  @RateLimit({ name: 'probe.limited', points: 3, durationSeconds: 60, key: 'ip' })
  limited(): { ok: true } {
    return { ok: true };
  }

  /** A route whose credentials have their own limits (as SCIM and LTI service tokens): outside request budgets. */
  @Get('own-budget')
  @ApiOperation({ summary: 'probe' })
  @OwnBudget()
  @RateLimit({ name: 'probe.own', points: 100, durationSeconds: 60, key: 'ip' })
  ownBudget(): { ok: true } {
    return { ok: true };
  }

  @Get('slow')
  @ApiOperation({ summary: 'probe' })
  async slow(): Promise<{ finished: true }> {
    slowGate.started.resolve();
    await slowGate.current.promise;
    return { finished: true };
  }

  @Post('enqueue')
  @ApiOperation({ summary: 'probe' })
  async enqueue(@Body() body: { key: string; failTimes?: number }): Promise<{ id: string }> {
    return {
      id: await this.jobs.enqueue(
        PROBE_JOB,
        { key: body.key, failTimes: body.failTimes ?? 0 },
        { organizationId: null },
      ),
    };
  }
}

@Controller('_probe_private')
export class PrivateProbeController {
  @Get()
  @ApiOperation({ summary: 'probe' })
  get(): { ok: true } {
    return { ok: true };
  }
}

@Module({
  controllers: [ProbeController, PrivateProbeController],
  providers: [ProbeHandlers, ProbeSubscriber, ProbeSchedule, ProbeLedgerSubscriber],
})
export class ProbeModule {}
