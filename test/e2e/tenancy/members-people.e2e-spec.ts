import { anonymousPerson, PeopleService } from '@/modules/tenancy/members';
import type { Membership, OrgRole } from '@/core/auth/tenancy';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/** extensions-v2 2.2: who sees whom, for every area that shows people. */
describe('People (extensions-v2 2.2)', () => {
  let t: TestApp;
  let people: PeopleService;
  let org: string;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let student: SignedIn;
  let publicOne: SignedIn;
  let privateOne: SignedIn;
  let taughtPrivate: SignedIn;
  let minorPublic: SignedIn;

  const as = (s: SignedIn, role: OrgRole): Membership => ({ organizationId: org, userId: s.user.id, role });

  beforeAll(async () => {
    t = await createTestApp();
    people = t.app.get(PeopleService);
    owner = await adult(t);
    org = await createOrganization(t, owner, 'People org');
    [admin, teacher, student, publicOne, privateOne, taughtPrivate, minorPublic] = await Promise.all(
      Array.from({ length: 7 }, () => adult(t)),
    );
    await addMember(t, org, admin.user.id, 'admin');
    await addMember(t, org, teacher.user.id, 'teacher');
    for (const s of [student, publicOne, privateOne, taughtPrivate, minorPublic]) {
      await addMember(t, org, s.user.id, 'student');
    }
    await publicOne.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
    // A minor's profile cannot be turned public through the API; one made public before the bracket changed.
    await t.db.query(`UPDATE users SET public_profile = true, age_bracket = 'under_18' WHERE id = $1`, [
      minorPublic.user.id,
    ]);
    const cohort = await owner.agent.post(`/api/v1/organizations/${org}/cohorts`).send({ name: 'Taught' }).expect(201);
    const members = `/api/v1/organizations/${org}/cohorts/${cohort.body.id}/members`;
    await owner.agent.post(members).send({ user_id: teacher.user.id, role: 'teacher' }).expect(201);
    await owner.agent.post(members).send({ user_id: taughtPrivate.user.id, role: 'student' }).expect(201);
  });
  afterAll(() => t.close());

  const everyone = (): string[] => [publicOne, privateOne, taughtPrivate, minorPublic, student].map((s) => s.user.id);

  function visibleIds(seen: Map<string, { user_id: string | null; anonymous: boolean }>): string[] {
    return [...seen.entries()].filter(([, p]) => !p.anonymous).map(([id]) => id);
  }

  it('a student sees themself and public adults only; hidden people carry no id', async () => {
    const seen = await people.asSeenBy(as(student, 'student'), everyone());
    expect(visibleIds(seen).sort()).toEqual([publicOne.user.id, student.user.id].sort());
    expect(seen.get(privateOne.user.id)).toEqual(anonymousPerson());
    expect(seen.get(minorPublic.user.id)).toEqual(anonymousPerson());
    expect(seen.get(publicOne.user.id)).toEqual({
      user_id: publicOne.user.id,
      username: publicOne.user.username,
      name: 'Test Person',
      avatar_svg_url: expect.stringMatching(new RegExp(`/api/v1/users/${publicOne.user.id}/avatar\\.svg\\?v=`)),
      anonymous: false,
    });
  });

  it('owners and admins see everyone of the organization', async () => {
    for (const [s, role] of [
      [owner, 'owner'],
      [admin, 'admin'],
    ] as const) {
      const seen = await people.asSeenBy(as(s, role), everyone());
      expect(visibleIds(seen).sort()).toEqual(everyone().sort());
    }
  });

  it('a teacher sees public adults and the students of the cohorts they teach, no one else', async () => {
    const seen = await people.asSeenBy(as(teacher, 'teacher'), everyone());
    expect(visibleIds(seen).sort()).toEqual([publicOne.user.id, taughtPrivate.user.id].sort());
  });

  it('the teacher relation is per organization: teaching elsewhere shows no private student', async () => {
    const other = await createOrganization(t, teacher, 'Elsewhere');
    const seen = await people.asSeenBy({ organizationId: other, userId: teacher.user.id, role: 'teacher' }, [
      taughtPrivate.user.id,
    ]);
    expect(seen.get(taughtPrivate.user.id)).toEqual(anonymousPerson());
  });

  it('unknown ids and duplicates: one anonymous entry each, no error', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const seen = await people.asSeenBy(as(student, 'student'), [unknown, unknown, publicOne.user.id]);
    expect(seen.size).toBe(2);
    expect(seen.get(unknown)).toEqual(anonymousPerson());
    expect((await people.asSeenBy(as(student, 'student'), [])).size).toBe(0);
  });

  it('named() ignores the rule, for contexts entitled to see (a duel opponent, staff review)', async () => {
    const seen = await people.named([privateOne.user.id, minorPublic.user.id]);
    expect(visibleIds(seen).sort()).toEqual([privateOne.user.id, minorPublic.user.id].sort());
  });

  it('turning public_profile off hides the person at once', async () => {
    await publicOne.agent.patch('/api/v1/me/profile').send({ public_profile: false }).expect(200);
    const seen = await people.oneAsSeenBy(as(student, 'student'), publicOne.user.id);
    expect(seen).toEqual(anonymousPerson());
    await publicOne.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
  });
});
