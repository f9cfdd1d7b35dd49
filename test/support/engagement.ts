import { randomUUID } from 'node:crypto';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import type { EventName, EventPayload } from '@/core/events/event-catalog';
import { EventDispatcher } from '@/core/events/event-dispatcher';
import { UsersService } from '@/modules/identity/users';
import { addMember } from './tenancy';
import type { TestApp } from './test-app';
import type { OrgRole } from '@/core/auth/tenancy';

/**
 * Engagement fixtures: learning facts published as their areas publish them (through `DomainEvents`, in a
 * transaction), and a wait until every due delivery is applied (the app's own dispatcher loop may be holding
 * some: the helper polls the outbox, it never waits on the Clock).
 */
export async function publish<N extends EventName>(
  t: TestApp,
  name: N,
  payload: EventPayload<N>,
  organizationId: string | null,
  options: { actorId?: string | null; occurredAt?: Date; settle?: boolean } = {},
): Promise<string> {
  const id = await t.app.get(TransactionRunner).run((tx) =>
    t.app.get(DomainEvents).publish(tx, name, payload, {
      organizationId,
      actorId: options.actorId ?? null,
      occurredAt: options.occurredAt,
    }),
  );
  if (options.settle !== false) await settle(t);
  return id;
}

/** Runs deliveries until none is due; throws when a gamification delivery failed (its error). */
export async function settle(t: TestApp): Promise<void> {
  const dispatcher = t.app.get(EventDispatcher);
  for (let i = 0; i < 500; i++) {
    await dispatcher.drain();
    const rows = await t.db.query<{ n: number; err: string | null }[]>(
      `SELECT count(*)::int AS n, max(last_error) AS err FROM domain_event_deliveries
       WHERE status <> 'done' AND (run_after <= $1 OR last_error IS NOT NULL OR locked_until IS NOT NULL)`,
      [t.clock.now()],
    );
    if (rows[0].err) throw new Error(`A delivery failed: ${rows[0].err}`);
    if (rows[0].n === 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('Deliveries did not settle');
}

/** A person who never signs in (leaderboard fill), made a member with `role`. */
export async function quietMember(
  t: TestApp,
  organizationId: string,
  role: OrgRole = 'student',
  profile: { publicProfile?: boolean; timeZone?: string } = {},
): Promise<string> {
  const { user } = await t.app.get(UsersService).findOrCreate(t.nextEmail('quiet'), 'es');
  await addMember(t, organizationId, user.id, role);
  if (profile.publicProfile || profile.timeZone)
    await t.app.get(UsersService).updateProfile(user.id, {
      ...(profile.publicProfile ? { public_profile: true } : {}),
      ...(profile.timeZone ? { time_zone: profile.timeZone } : {}),
    });
  return user.id;
}

export const lessonCompleted = (userId: string, lessonId: string = randomUUID(), courseId: string = randomUUID()) =>
  ({ user_id: userId, course_id: courseId, lesson_id: lessonId }) as const;
