import { randomUUID } from 'node:crypto';
import { UsersService } from '@/modules/identity/users';
import type { SignedIn } from '../../support/auth';
import { lessonCompleted, publish } from '../../support/engagement';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Public profiles toward colleagues (interface-v1 users, extensions-v2 3.1, 17.6): the gamification block of the
 * organization of the path; 404 when the profile is off, for non-members and for minors.
 */
describe('gamification: colleague profiles', () => {
  let t: TestApp;
  let owner: SignedIn;
  let viewer: SignedIn;
  let colleague: SignedIn;
  let org: string;
  let orgB: string;

  const profile = (s: SignedIn, username: string, o = org) =>
    s.agent.get(`/api/v1/organizations/${o}/profiles/${encodeURIComponent(username)}`);

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    org = await createOrganization(t, owner);
    orgB = await createOrganization(t, owner, 'Other');
    [viewer, colleague] = [await adult(t), await adult(t)];
    await addMember(t, org, viewer.user.id, 'student');
    await addMember(t, org, colleague.user.id, 'student');
    await addMember(t, orgB, colleague.user.id, 'student');
  });
  afterAll(() => t.close());

  it('shows XP, level, title, streak and the 6 most recent badges of this organization', async () => {
    await colleague.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
    for (let i = 0; i < 10; i++)
      await publish(
        t,
        'course.completed',
        { user_id: colleague.user.id, course_id: randomUUID(), completed_at: t.clock.now().toISOString() },
        org,
        { settle: i === 9 },
      );
    await publish(t, 'lesson.completed', lessonCompleted(colleague.user.id), org);
    await publish(t, 'lesson.completed', lessonCompleted(colleague.user.id), orgB);
    await colleague.agent.put(`/api/v1/organizations/${org}/titles/current`).send({ code: 'apprentice' }).expect(200);
    const res = await profile(viewer, colleague.user.username as string).expect(200);
    expect(res.body.gamification).toEqual({
      xp: 1010,
      level: 5,
      title: { code: 'apprentice', name: 'Aprendiz' },
      streak_current: 1,
      badges: expect.any(Array),
    });
    expect(res.body.gamification.badges.map((b: { code: string }) => b.code).sort()).toEqual([
      'first_course',
      'first_lesson',
      'five_courses',
    ]);
    expect(res.body.gamification.badges[0]).toEqual({
      code: expect.any(String),
      name: expect.any(String),
      icon: expect.stringMatching(/^badge-/),
      earned_at: expect.any(String),
    });
    // Another organization's path shows that organization's figures.
    const there = await profile(colleague, colleague.user.username as string, orgB).expect(200);
    expect(there.body.gamification).toMatchObject({ xp: 10, level: 1, title: null });
    // At most six badges.
    for (const code of ['quiz_ace', 'exam_passed', 'first_duel_win', 'streak_7'])
      await t.db.query(
        `INSERT INTO badge_awards (organization_id, user_id, code, kind, name, icon) VALUES ($1, $2, $3, 'system', $3, $3)`,
        [org, colleague.user.id, code],
      );
    expect(
      (await profile(viewer, colleague.user.username as string).expect(200)).body.gamification.badges,
    ).toHaveLength(6);
  });

  it('404 when the profile is off, for a non-member and for a minor; one’s own is always visible', async () => {
    const off = await adult(t);
    await addMember(t, org, off.user.id, 'student');
    await profile(viewer, off.user.username as string).expect(404);
    await profile(off, off.user.username as string).expect(200);
    const outsider = await adult(t);
    await outsider.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
    await profile(viewer, outsider.user.username as string).expect(404);
    await profile(outsider, colleague.user.username as string).expect(404);
    // A minor whose flag was on before the bracket was set.
    const minor = await adult(t);
    await addMember(t, org, minor.user.id, 'student');
    await minor.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
    await profile(viewer, minor.user.username as string).expect(200);
    await t.db.query(`UPDATE users SET age_bracket = 'under_18' WHERE id = $1`, [minor.user.id]);
    await t.app.get(UsersService).raiseTokenVersion(minor.user.id); // drops the cached account
    await profile(viewer, minor.user.username as string).expect(404);
  });
});
