import { SetMetadata } from '@nestjs/common';
import { CronExpressionParser } from 'cron-parser';

export interface ScheduleDefinition {
  /** Unique name, `<area>.<work>` (extensions-v2 26.2). */
  readonly name: string;
  /** Five-field cron in UTC. */
  readonly cron: string;
}

/** What a schedule handler receives. */
export interface ScheduleContext {
  /** The UTC minute this run is for (the tick), whatever the time it actually runs. */
  readonly scheduledAt: Date;
  readonly jobId: string;
}

export const SCHEDULE_HANDLER = Symbol('SCHEDULE_HANDLER');

const schedules = new Map<string, ScheduleDefinition>();
/** `<area>.<work>`, as the schedules of extensions-v2 26.2 (`notifications.streak_reminders`). */
const NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/**
 * Declares periodic work. Every declared schedule must have exactly one `@ScheduleHandler`, or the start fails.
 * Each minute's due schedules are enqueued as outbox jobs with the dedupe key `schedule:<name>:<minute>`, so any
 * number of instances produce one run per tick.
 */
export function defineSchedule(def: ScheduleDefinition): ScheduleDefinition {
  if (!NAME.test(def.name))
    throw new Error(`Schedule name "${def.name}" is not <area>.<work> (lowercase, underscores)`);
  if (schedules.has(def.name)) throw new Error(`Schedule "${def.name}" is defined twice`);
  if (def.cron.trim().split(/\s+/).length !== 5) throw new Error(`Schedule "${def.name}": cron must have 5 fields`);
  CronExpressionParser.parse(def.cron, { tz: 'UTC', strict: false }); // throws on a malformed expression
  schedules.set(def.name, def);
  return def;
}

export function definedSchedules(): ReadonlyMap<string, ScheduleDefinition> {
  return schedules;
}

/** Whether the cron fires at this UTC minute. */
export function isDue(def: ScheduleDefinition, minute: Date): boolean {
  return CronExpressionParser.parse(def.cron, { tz: 'UTC' }).includesDate(minute);
}

/** Floors a time to its UTC minute. */
export function minuteOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000);
}

/**
 * Marks a provider method as the handler of a schedule: `(ctx: ScheduleContext) => Promise<void>`. It runs as an
 * outbox job (retried, never lost) and must be idempotent; it should do its work in bounded batches and enqueue
 * further jobs for large fan-outs.
 */
export const ScheduleHandler = (definition: ScheduleDefinition): MethodDecorator =>
  SetMetadata(SCHEDULE_HANDLER, definition);
