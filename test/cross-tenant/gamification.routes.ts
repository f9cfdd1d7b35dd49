import { CohortsService } from '@/modules/tenancy/cohorts';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { lessonCompleted, publish } from '../support/engagement';
import { makeCourse } from './learning.routes';
import { ADMINS, ALL_ROLES, STAFF, type ScopedRoute } from './route';

const base = (org: OrgFixture): string => `/api/v1/organizations/${org.id}`;
const challenges = (org: OrgFixture): string => `${base(org)}/challenges`;
const HOUR = 3_600_000;

/** A cohort taught by the organization's teacher, under `org.ids.challengeCohort`. */
async function taughtCohort(t: TestApp, org: OrgFixture): Promise<void> {
  if (org.ids.challengeCohort) return;
  const cohorts = t.app.get(CohortsService);
  const cohort = await cohorts.create(org.id, { name: `Challengers ${org.id.slice(0, 6)}` }, org.people.owner.user.id);
  await cohorts.addMember(org.id, cohort.id, org.people.teacher.user.id, 'teacher');
  org.ids.challengeCohort = cohort.id;
}

const challengeBody = (_o: OrgFixture, over: Record<string, unknown> = {}) => ({
  title: 'Cross-tenant challenge',
  metric: 'xp',
  starts_at: new Date(Date.now() + 24 * HOUR).toISOString(),
  ends_at: new Date(Date.now() + 48 * HOUR).toISOString(),
  ...over,
});

/** An upcoming organization-wide challenge created by the owner, under `org.ids[key]`. */
async function challenge(_t: TestApp, org: OrgFixture, key: string): Promise<void> {
  const res = await org.people.owner.agent.post(challenges(org)).send(challengeBody(org));
  if (res.status !== 201) throw new Error(`challenge setup failed: ${res.status} ${JSON.stringify(res.body)}`);
  org.ids[key] = res.body.id as string;
}

/** A course the student rated (with a comment), under `org.ids.ratedCourse`. */
async function ratedCourse(t: TestApp, org: OrgFixture, key: string): Promise<void> {
  const made = await makeCourse(t, org.people.owner.user.id, { title: `Rated ${key} ${org.id.slice(0, 6)}` });
  org.ids[key] = made.id;
  const agent = org.people.student.agent;
  const enrolled = await agent.post(`${base(org)}/courses/${made.id}/enroll`);
  if (enrolled.status !== 201) throw new Error(`enroll setup failed: ${enrolled.status}`);
  const rated = await agent.post(`${base(org)}/courses/${made.id}/ratings`).send({ stars: 4, comment: 'Good' });
  if (rated.status !== 200) throw new Error(`rating setup failed: ${rated.status}`);
}

const today = (): string => new Date().toISOString().slice(0, 10);

export const gamificationRoutes: ScopedRoute[] = [
  { name: 'my XP', method: 'get', path: (o) => `${base(o)}/xp`, roles: ALL_ROLES, ok: 200 },
  { name: 'my XP history', method: 'get', path: (o) => `${base(o)}/xp/history`, roles: ALL_ROLES, ok: 200 },
  { name: 'the leaderboard', method: 'get', path: (o) => `${base(o)}/leaderboard`, roles: ALL_ROLES, ok: 200 },
  { name: 'my badges', method: 'get', path: (o) => `${base(o)}/badges`, roles: ALL_ROLES, ok: 200 },
  { name: 'titles', method: 'get', path: (o) => `${base(o)}/titles`, roles: ALL_ROLES, ok: 200 },
  {
    name: 'choose my title',
    method: 'put',
    path: (o) => `${base(o)}/titles/current`,
    body: () => ({ code: 'novice' }),
    roles: ALL_ROLES,
    ok: 200,
  },
  { name: 'my missions', method: 'get', path: (o) => `${base(o)}/missions`, roles: ALL_ROLES, ok: 200 },
  {
    name: 'claim a mission',
    method: 'post',
    path: (o) => `${base(o)}/missions/daily_lesson-${today()}/claim`,
    roles: ALL_ROLES,
    ok: 200,
    setup: async (t, o) => {
      await publish(t, 'lesson.completed', lessonCompleted(o.people.student.user.id), o.id, { occurredAt: new Date() });
    },
  },
  { name: 'the daily reward', method: 'get', path: (o) => `${base(o)}/daily-reward`, roles: ALL_ROLES, ok: 200 },
  {
    name: 'claim the daily reward',
    method: 'post',
    path: (o) => `${base(o)}/daily-reward/claim`,
    roles: ALL_ROLES,
    ok: 200,
  },
  { name: 'challenges', method: 'get', path: challenges, roles: ALL_ROLES, ok: 200 },
  {
    name: 'create a challenge',
    method: 'post',
    path: challenges,
    body: (o) => challengeBody(o, { cohort_id: o.ids.challengeCohort }),
    roles: STAFF,
    ok: 201,
    setup: taughtCohort,
  },
  {
    name: 'a challenge',
    method: 'get',
    path: (o) => `${challenges(o)}/${o.ids.readChallenge}`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => challenge(t, o, 'readChallenge'),
  },
  {
    name: 'change a challenge',
    method: 'patch',
    path: (o) => `${challenges(o)}/${o.ids.editChallenge}`,
    body: () => ({ title: 'Renamed' }),
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => challenge(t, o, 'editChallenge'),
  },
  {
    name: 'delete a challenge',
    method: 'delete',
    path: (o) => `${challenges(o)}/${o.ids.deleteChallenge}`,
    roles: ADMINS,
    ok: 204,
    setup: (t, o) => challenge(t, o, 'deleteChallenge'),
  },
  {
    name: 'challenge standings',
    method: 'get',
    path: (o) => `${challenges(o)}/${o.ids.readChallenge}/standings`,
    roles: ALL_ROLES,
    ok: 200,
  },
  {
    name: 'join a challenge',
    method: 'post',
    path: (o) => `${challenges(o)}/${o.ids.joinChallenge}/join`,
    roles: ALL_ROLES,
    ok: 201,
    setup: (t, o) => challenge(t, o, 'joinChallenge'),
  },
  {
    name: 'leave a challenge',
    method: 'post',
    path: (o) => `${challenges(o)}/${o.ids.leaveChallenge}/leave`,
    roles: ALL_ROLES,
    ok: 204,
    setup: async (t, o) => {
      await challenge(t, o, 'leaveChallenge');
      const res = await o.people.student.agent.post(`${challenges(o)}/${o.ids.leaveChallenge}/join`);
      if (res.status !== 201) throw new Error(`join setup failed: ${res.status}`);
    },
  },
  {
    name: 'ratings of a course',
    method: 'get',
    path: (o) => `${base(o)}/courses/${o.ids.listedRatings}/ratings`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => ratedCourse(t, o, 'listedRatings'),
  },
  {
    name: 'withdraw my rating',
    method: 'delete',
    path: (o) => `${base(o)}/courses/${o.ids.withdrawnRating}/ratings/mine`,
    roles: ALL_ROLES,
    ok: 204,
    setup: (t, o) => ratedCourse(t, o, 'withdrawnRating'),
  },
  {
    name: 'remove a rating comment',
    method: 'post',
    path: (o) => `${base(o)}/courses/${o.ids.moderatedRating}/ratings/${o.people.student.user.id}/remove-comment`,
    body: () => ({ reason: 'Off topic' }),
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => ratedCourse(t, o, 'moderatedRating'),
  },
];
