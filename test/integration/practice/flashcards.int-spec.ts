import { TypeOrmModule } from '@nestjs/typeorm';
import type { Membership } from '@/core/auth/tenancy';
import { CatalogService } from '@/modules/learning/courses';
import { ProgressService } from '@/modules/learning/progress';
import { UserEntity } from '@/modules/identity/users/testing';
import { FlashcardsRepository, review as schedule, type ScheduledState } from '@/modules/practice/flashcards/testing';
import { FlashcardsService } from '@/modules/practice/flashcards';
import { PEOPLE } from '../../support/integration-neighbours';
import {
  clockAt,
  createIntegration,
  type Integration,
  insertMember,
  insertOrganization,
  insertUser,
  outOfScope,
} from '../../support/integration';

/**
 * Flashcard scheduling (extensions-v2 6.2-6.4) through the service and its repository on the real database: SM-2
 * intervals and ease, due dates in the person's zone, FSRS, and the replay of the review log on a change of
 * scheduler.
 */
describe('Flashcards scheduling (integration)', () => {
  let it_: Integration;
  let service: FlashcardsService;
  let org: string;

  beforeAll(async () => {
    it_ = await createIntegration({
      imports: [TypeOrmModule.forFeature([UserEntity])],
      providers: [
        ...PEOPLE,
        FlashcardsRepository,
        FlashcardsService,
        // Personal decks only: the course catalog and enrollments (course decks) are never reached.
        { provide: CatalogService, useValue: outOfScope('CatalogService') },
        { provide: ProgressService, useValue: outOfScope('ProgressService') },
      ],
    });
    service = it_.get(FlashcardsService);
    org = await insertOrganization(it_.db);
  });

  afterAll(async () => {
    await it_?.close();
  });

  async function learnerWithCard(timeZone: string): Promise<{ member: Membership; cardId: string }> {
    const { id } = await insertUser(it_.db, { timeZone });
    await insertMember(it_.db, org, id);
    const member: Membership = { organizationId: org, userId: id, role: 'student' };
    const deck = await service.createDeck(member, { title: 'Verbs' });
    const card = await service.addCard(member, deck.id, { front_md: 'ser', back_md: 'to be' });
    return { member, cardId: card.id };
  }

  it('SM-2: intervals 1, 6, then round(I x EF) with the ease before the review; due dates in Tokyo', async () => {
    const { member, cardId } = await learnerWithCard('Asia/Tokyo');
    // 16:00Z is 01:00 on the 30th in Tokyo (UTC+9): the review's local date is the 30th.
    clockAt(it_.clock, '2026-11-29T16:00:00Z');
    const first = await service.review(member, cardId, { grade: 5 });
    expect(first.created).toBe(true);
    expect(first.review.state).toMatchObject({
      scheduler: 'sm2',
      reviews: 1,
      due_on: '2026-12-01',
      due_at: '2026-11-30T15:00:00.000Z',
      sm2: { repetitions: 1, ease_factor: 2.6, interval_days: 1 },
      fsrs: null,
    });
    clockAt(it_.clock, '2026-12-01T01:00:00Z');
    const second = await service.review(member, cardId, { grade: 5 });
    expect(second.review.state).toMatchObject({
      due_on: '2026-12-07',
      sm2: { repetitions: 2, ease_factor: 2.7, interval_days: 6 },
    });
    clockAt(it_.clock, '2026-12-07T01:00:00Z');
    // 6 x 2.70 = 16.2: 16 days; a grade of 3 lowers the ease by 0.14 after the interval is computed.
    const third = await service.review(member, cardId, { grade: 3 });
    expect(third.review.state).toMatchObject({
      due_on: '2026-12-23',
      sm2: { repetitions: 3, ease_factor: 2.56, interval_days: 16 },
    });
    // A failed recall: back to one day, one lapse, the ease floor not reached.
    const fourth = await service.review(member, cardId, { grade: 1 });
    expect(fourth.review.state).toMatchObject({
      reviews: 4,
      lapses: 1,
      due_on: '2026-12-08',
      sm2: { repetitions: 0, ease_factor: 2.02, interval_days: 1 },
    });
  });

  it('a repeated client_review_id answers the first review and writes nothing', async () => {
    const { member, cardId } = await learnerWithCard('UTC');
    clockAt(it_.clock, '2026-11-29T10:00:00Z');
    const client = '0b6f2a53-2f7e-4b8e-9a55-7b1b7f0f3a11';
    const a = await service.review(member, cardId, { grade: 4, client_review_id: client });
    const b = await service.review(member, cardId, { grade: 1, client_review_id: client.toUpperCase() });
    expect(b).toEqual({ review: { ...a.review }, created: false });
    const [{ n }] = await it_.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM flashcard_reviews WHERE user_id = $1`,
      [member.userId],
    );
    expect(n).toBe(1);
  });

  it('FSRS: a change of scheduler replays the log; a higher retention gives a shorter interval', async () => {
    const { member, cardId } = await learnerWithCard('America/New_York');
    const times = ['2026-11-01T15:00:00Z', '2026-11-03T15:00:00Z', '2026-11-09T15:00:00Z'];
    for (const at of times) {
      clockAt(it_.clock, at);
      await service.review(member, cardId, { grade: 4 });
    }
    clockAt(it_.clock, '2026-11-10T15:00:00Z');
    const changed = await service.updateSettings(member.userId, { scheduler: 'fsrs', desired_retention: 0.9 });
    expect(changed).toMatchObject({ scheduler: 'fsrs', rescheduling: true, rescheduled_cards: 1 });
    const [{ generation }] = await it_.db.query<{ generation: number }[]>(
      `SELECT reschedule_generation AS generation FROM flashcard_settings WHERE user_id = $1`,
      [member.userId],
    );
    await service.reschedule(member.userId, generation);
    expect((await service.settings(member.userId)).rescheduling).toBe(false);
    // The same three reviews through FSRS from a new card, in the person's zone.
    const expected = times.reduce<ScheduledState | null>(
      (before, at) =>
        schedule(before, 4, new Date(at), 'America/New_York', { scheduler: 'fsrs', desiredRetention: 0.9 }),
      null,
    );
    const [state] = await it_.db.query<{ scheduler: string; due_on: string; reviews: number }[]>(
      `SELECT scheduler, due_on::text AS due_on, reviews FROM flashcard_states WHERE user_id = $1`,
      [member.userId],
    );
    expect(state).toEqual({ scheduler: 'fsrs', due_on: expected!.due_on, reviews: 3 });
    expect(expected!.fsrs!.scheduled_days).toBeGreaterThan(6);

    // A stricter retention schedules the next review sooner.
    const strict = await learnerWithCard('America/New_York');
    const loose = await learnerWithCard('America/New_York');
    await service.updateSettings(strict.member.userId, { scheduler: 'fsrs', desired_retention: 0.95 });
    await service.updateSettings(loose.member.userId, { scheduler: 'fsrs', desired_retention: 0.8 });
    const intervals: number[] = [];
    for (const who of [strict, loose]) {
      let last = 0;
      for (const at of times) {
        clockAt(it_.clock, at);
        last = (await service.review(who.member, who.cardId, { grade: 4 })).review.state.fsrs!.scheduled_days;
      }
      intervals.push(last);
    }
    expect(intervals[0]).toBeLessThan(intervals[1]);
  });
});
