import { TypeOrmModule } from '@nestjs/typeorm';
import { Injectable } from '@nestjs/common';
import { type EraseContext, PersonalData, type PersonalDataHandler } from '@/core/privacy/personal-data';
import { ERASURE_GRACE_MS, ErasureService } from '@/modules/identity/privacy';
import { PrivacyRepository } from '@/modules/identity/privacy/testing';
import { UserEntity, AccountPersonalData } from '@/modules/identity/users/testing';
import { OrganizationEntity, MembershipsPersonalData } from '@/modules/tenancy/organizations/testing';
import { ORGANIZATIONS, PEOPLE } from '../../support/integration-neighbours';
import {
  clockAt,
  createIntegration,
  type Integration,
  insertMember,
  insertOrganization,
  insertUser,
} from '../../support/integration';

const calls: string[] = [];
const failures = { left: 0 };

/** An area's eraser that records its runs and fails when told to (between the owners step and the account's). */
@Injectable()
@PersonalData({ area: 'probe', key: 'flaky', tables: [], eraseOrder: 10 })
class FlakyEraser implements PersonalDataHandler {
  export() {
    return Promise.resolve([]);
  }
  async erase({ userId, tx }: EraseContext) {
    calls.push(userId);
    // A write of the step that must roll back with it when the step fails.
    await tx.manager.query(`UPDATE users SET bio = 'flaky step' WHERE id = $1`, [userId]);
    if (failures.left > 0) {
      failures.left--;
      throw new Error('planned eraser failure');
    }
  }
}

/**
 * Account erasure (extensions-v2 17.4) run as its job runs it, on the real database: the steps in order, each
 * committed with its mark, the hand-over of organizations the person alone owns, and the resumption after a failed
 * step without redoing the steps already done.
 */
describe('Account erasure steps (integration)', () => {
  let it_: Integration;
  let erasure: ErasureService;

  beforeAll(async () => {
    it_ = await createIntegration({
      imports: [TypeOrmModule.forFeature([UserEntity, OrganizationEntity])],
      providers: [
        PrivacyRepository,
        ErasureService,
        FlakyEraser,
        // The account's own eraser (the last step), the memberships' eraser, and the neighbours the hand-over of
        // organizations uses.
        AccountPersonalData,
        MembershipsPersonalData,
        ...PEOPLE,
        ...ORGANIZATIONS,
      ],
    });
    erasure = it_.get(ErasureService);
  });

  afterAll(async () => {
    await it_?.close();
  });

  const erasureOf = async (userId: string) =>
    (
      await it_.db.query<{ id: string; status: string; steps_done: string[] }[]>(
        `SELECT id, status, steps_done FROM account_erasures WHERE user_id = $1`,
        [userId],
      )
    )[0];

  it('is skipped before its date; then hands the organization to the longest-standing admin and erases', async () => {
    clockAt(it_.clock, '2026-11-01T10:00:00Z');
    const person = await insertUser(it_.db);
    const org = await insertOrganization(it_.db, person.id);
    const teacher = await insertUser(it_.db);
    const firstAdmin = await insertUser(it_.db);
    const laterAdmin = await insertUser(it_.db);
    await insertMember(it_.db, org, teacher.id, 'teacher');
    // Refused while the person alone owns an organization with other members; those who join during the grace
    // period are who the organization is handed to.
    await expect(erasure.schedule(person.id, false, undefined)).rejects.toMatchObject({ code: 'sole_owner' });
    await it_.db.query(`DELETE FROM memberships WHERE organization_id = $1 AND user_id <> $2`, [org, person.id]);
    const scheduled = await erasure.schedule(person.id, false, undefined);
    expect(scheduled.scheduled_for).toBe(new Date(Date.parse(scheduled.requested_at) + ERASURE_GRACE_MS).toISOString());
    for (const [id, role, joined] of [
      [teacher.id, 'teacher', '2026-08-01T00:00:00Z'],
      [laterAdmin.id, 'admin', '2026-10-01T00:00:00Z'],
      [firstAdmin.id, 'admin', '2026-09-01T00:00:00Z'],
    ])
      await it_.db.query(
        `INSERT INTO memberships (organization_id, user_id, role, joined_at) VALUES ($1, $2, $3, $4)`,
        [org, id, role, joined],
      );
    const { id } = await erasureOf(person.id);

    clockAt(it_.clock, '2026-11-14T10:00:00Z');
    expect(await erasure.run(id)).toBe('skipped');
    expect(calls).not.toContain(person.id);

    clockAt(it_.clock, '2026-11-15T10:00:01Z');
    expect(await erasure.run(id)).toBe('done');
    const done = await erasureOf(person.id);
    expect(done.status).toBe('completed');
    expect(done.steps_done[0]).toBe('owners');
    expect(done.steps_done.indexOf('erase:probe.flaky')).toBeLessThan(done.steps_done.indexOf('erase:account.profile'));
    expect(done.steps_done.at(-1)).toBe('finish');
    expect(
      await it_.db.query(`SELECT user_id, role FROM memberships WHERE organization_id = $1 ORDER BY role, user_id`, [
        org,
      ]),
    ).toEqual(
      [
        { user_id: firstAdmin.id, role: 'owner' },
        { user_id: laterAdmin.id, role: 'admin' },
        { user_id: teacher.id, role: 'teacher' },
      ].sort((a, b) => (a.role === b.role ? (a.user_id < b.user_id ? -1 : 1) : a.role < b.role ? -1 : 1)),
    );
    const [user] = await it_.db.query<{ email: string; erased_at: Date | null }[]>(
      `SELECT email, erased_at FROM users WHERE id = $1`,
      [person.id],
    );
    expect(user.email).not.toBe(person.email);
    expect(user.erased_at).not.toBeNull();
    // A second run of a completed erasure does nothing.
    expect(await erasure.run(id)).toBe('skipped');
  });

  it('an organization whose only member is the person is suspended', async () => {
    clockAt(it_.clock, '2026-11-01T10:00:00Z');
    const person = await insertUser(it_.db);
    const org = await insertOrganization(it_.db, person.id);
    await erasure.schedule(person.id, false, undefined);
    clockAt(it_.clock, '2026-11-16T10:00:00Z');
    expect(await erasure.run((await erasureOf(person.id)).id)).toBe('done');
    expect(await it_.db.query(`SELECT status, suspended_reason FROM organizations WHERE id = $1`, [org])).toEqual([
      { status: 'suspended', suspended_reason: 'owner_erased' },
    ]);
  });

  it('a failing step stops the run with its writes undone; the next run resumes there and redoes nothing', async () => {
    clockAt(it_.clock, '2026-11-01T10:00:00Z');
    const person = await insertUser(it_.db);
    await erasure.schedule(person.id, false, undefined);
    const { id } = await erasureOf(person.id);
    clockAt(it_.clock, '2026-11-16T10:00:00Z');
    failures.left = 1;
    calls.length = 0;
    await expect(erasure.run(id)).rejects.toThrow('planned eraser failure');
    const stopped = await erasureOf(person.id);
    expect(stopped.steps_done).toEqual(['owners']);
    expect(await it_.db.query(`SELECT bio FROM users WHERE id = $1`, [person.id])).toEqual([{ bio: null }]);
    expect(await erasure.run(id)).toBe('done');
    expect(calls).toEqual([person.id, person.id]);
    const finished = await erasureOf(person.id);
    expect(finished.status).toBe('completed');
    expect(finished.steps_done.filter((s) => s === 'owners')).toHaveLength(1);
  });
});
