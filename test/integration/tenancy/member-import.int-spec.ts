import { TypeOrmModule } from '@nestjs/typeorm';
import { EmailCodeService, SignInService } from '@/modules/identity/auth';
import { UserEntity } from '@/modules/identity/users/testing';
import { CohortsRepository } from '@/modules/tenancy/cohorts/testing';
import { CohortsService, InstituteLinks } from '@/modules/tenancy/cohorts';
import { InvitationsRepository } from '@/modules/tenancy/invitations/testing';
import { InvitationsService } from '@/modules/tenancy/invitations';
import { OrganizationEntity } from '@/modules/tenancy/organizations/testing';
import { MemberImportRepository, type ImportRow } from '@/modules/tenancy/member-import/testing';
import { MemberImportService } from '@/modules/tenancy/member-import';
import { ORGANIZATIONS, PEOPLE } from '../../support/integration-neighbours';
import {
  createIntegration,
  type Integration,
  insertMember,
  insertOrganization,
  insertUser,
  outOfScope,
} from '../../support/integration';

/**
 * Member import (interface 7.x, the CSV import) run as its job runs it, on the real database: each row's outcome
 * and reason, what the rows change, and the refusals that fail a whole import.
 */
describe('Member import outcomes (integration)', () => {
  let it_: Integration;
  let service: MemberImportService;

  beforeAll(async () => {
    it_ = await createIntegration({
      imports: [TypeOrmModule.forFeature([UserEntity, OrganizationEntity])],
      providers: [
        MemberImportRepository,
        MemberImportService,
        // The neighbours an import writes through: accounts, memberships, cohorts, invitations.
        ...PEOPLE,
        ...ORGANIZATIONS,
        CohortsRepository,
        CohortsService,
        InvitationsRepository,
        InvitationsService,
        // Reached only by other paths (accepting an invitation, institutes, admins' figures), never by an import.
        { provide: EmailCodeService, useValue: outOfScope('EmailCodeService') },
        { provide: SignInService, useValue: outOfScope('SignInService') },
        { provide: InstituteLinks, useValue: outOfScope('InstituteLinks') },
      ],
    });
    service = it_.get(MemberImportService);
  });

  afterAll(async () => {
    await it_?.close();
  });

  const row = (
    n: number,
    email: string | null,
    role: string | null = null,
    cohort: string | null = null,
  ): ImportRow => ({
    row: n,
    email,
    name: null,
    role,
    cohort,
  });

  async function report(org: string, id: string) {
    const out: { row: number; email: string | null; outcome: string | null; reason: string | null }[] = [];
    for await (const r of await service.reportSource(org, id)) out.push(r);
    return out.sort((a, b) => a.row - b.row);
  }

  it('adds accounts, invites new addresses, and skips or fails the rest with the reason', async () => {
    const owner = await insertUser(it_.db);
    const admin = await insertUser(it_.db);
    const org = await insertOrganization(it_.db, owner.id);
    await insertMember(it_.db, org, admin.id, 'admin');
    await it_.db.query(`INSERT INTO cohorts (organization_id, name) VALUES ($1, 'Group A')`, [org]);
    const existing = await insertUser(it_.db);
    const member = await insertUser(it_.db);
    await insertMember(it_.db, org, member.id);

    const { id } = await service.start(org, admin.id, [
      row(2, existing.email.toUpperCase(), 'teacher', 'Group A'),
      row(3, 'new.person@example.test'),
      row(4, ' New.Person@example.test '),
      row(5, 'not-an-address'),
      row(6, 'boss@example.test', 'admin'),
      row(7, member.email),
      row(8, 'someone@example.test', 'student', 'Nope'),
      row(9, 'other@example.test', 'janitor'),
    ]);
    expect((await service.status(org, id)).status).toBe('queued');
    await service.run(id, org);

    expect(await report(org, id)).toEqual([
      { row: 2, email: existing.email.toUpperCase(), outcome: 'added', reason: null },
      { row: 3, email: 'new.person@example.test', outcome: 'invited', reason: null },
      {
        row: 4,
        email: ' New.Person@example.test ',
        outcome: 'skipped',
        reason: 'The address appears earlier in the file.',
      },
      { row: 5, email: 'not-an-address', outcome: 'failed', reason: 'The email address is not valid.' },
      {
        row: 6,
        email: 'boss@example.test',
        outcome: 'failed',
        reason: 'Only an owner can grant the owner or admin role.',
      },
      { row: 7, email: member.email, outcome: 'skipped', reason: 'Already a member.' },
      {
        row: 8,
        email: 'someone@example.test',
        outcome: 'failed',
        reason: 'No cohort named "Nope" in this organization.',
      },
      {
        row: 9,
        email: 'other@example.test',
        outcome: 'failed',
        reason: 'Unknown role "janitor": use owner, admin, teacher or student.',
      },
    ]);
    expect(await service.status(org, id)).toMatchObject({
      status: 'completed',
      total: 8,
      added: 1,
      invited: 1,
      skipped: 2,
      failed: 4,
    });
    // What the rows changed: the account joined as a teacher and its cohort; one invitation, for the new address.
    expect(
      await it_.db.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [
        org,
        existing.id,
      ]),
    ).toEqual([{ role: 'teacher' }]);
    expect(
      await it_.db.query(
        `SELECT cm.role FROM cohort_members cm JOIN cohorts c ON c.id = cm.cohort_id
         WHERE c.organization_id = $1 AND c.name = 'Group A' AND cm.user_id = $2`,
        [org, existing.id],
      ),
    ).toEqual([{ role: 'teacher' }]);
    expect(
      await it_.db.query(`SELECT lower(email) AS email FROM invitations WHERE organization_id = $1`, [org]),
    ).toEqual([{ email: 'new.person@example.test' }]);
    // Running the job again (a retry after a crash) changes nothing.
    await service.run(id, org);
    expect(await service.status(org, id)).toMatchObject({ added: 1, invited: 1, skipped: 2, failed: 4 });
  });

  it('an owner may grant admin; an import whose author is no longer an admin fails whole', async () => {
    const owner = await insertUser(it_.db);
    const org = await insertOrganization(it_.db, owner.id);
    const first = await service.start(org, owner.id, [row(2, 'deputy@example.test', 'admin')]);
    await service.run(first.id, org);
    expect(await report(org, first.id)).toEqual([
      { row: 2, email: 'deputy@example.test', outcome: 'invited', reason: null },
    ]);

    const admin = await insertUser(it_.db);
    await insertMember(it_.db, org, admin.id, 'admin');
    const second = await service.start(org, admin.id, [row(2, 'late@example.test')]);
    await it_.db.query(`UPDATE memberships SET role = 'student' WHERE organization_id = $1 AND user_id = $2`, [
      org,
      admin.id,
    ]);
    await service.run(second.id, org);
    const [record] = await it_.db.query<{ status: string; error: string }[]>(
      `SELECT status, error FROM member_imports WHERE id = $1`,
      [second.id],
    );
    expect(record).toEqual({
      status: 'failed',
      error: 'The person who started the import is no longer an owner or admin.',
    });
    expect(await report(org, second.id)).toEqual([{ row: 2, email: 'late@example.test', outcome: null, reason: null }]);
  });

  it('a job naming another organization finds nothing and changes nothing', async () => {
    const owner = await insertUser(it_.db);
    const org = await insertOrganization(it_.db, owner.id);
    const other = await insertOrganization(it_.db, (await insertUser(it_.db)).id);
    const { id } = await service.start(org, owner.id, [row(2, 'x@example.test')]);
    await service.run(id, other);
    expect((await service.status(org, id)).status).toBe('queued');
    await expect(service.status(other, id)).rejects.toMatchObject({ status: 404 });
  });
});
