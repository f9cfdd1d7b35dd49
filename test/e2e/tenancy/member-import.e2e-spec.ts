import { MemberImportRepository } from '@/modules/tenancy/member-import/testing';
import { IMPORT_BATCH, MemberImportService } from '@/modules/tenancy/member-import';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { signIn, type SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const BOM = '\uFEFF';

describe('CSV member import (extensions-v1 "Members, invitations, import")', () => {
  let t: TestApp;
  let owner: SignedIn;
  let org: string;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Import Org');
  });
  afterAll(() => t.close());

  const upload = (agent: SignedIn['agent'], content: string | Buffer, orgId = org, name = 'members.csv') =>
    agent
      .post(`/api/v1/organizations/${orgId}/members/import`)
      .attach('file', Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'), {
        filename: name,
        contentType: 'text/csv',
      });

  async function finished(id: string, orgId = org, agent = owner.agent): Promise<Record<string, unknown>> {
    return waitUntil(
      async () => {
        const res = await agent.get(`/api/v1/organizations/${orgId}/members/import/${id}`).expect(200);
        return res.body.status === 'completed' || res.body.status === 'failed'
          ? (res.body as Record<string, unknown>)
          : null;
      },
      { what: 'the import to finish', timeoutMs: 60_000 },
    );
  }

  it('invites unknown addresses, adds existing accounts, skips members and repeated rows, fails bad rows; report and audit', async () => {
    const existing = await signIn(t);
    const member = await signIn(t);
    await addMember(t, org, member.user.id, 'student');
    const cohort = (
      await owner.agent.post(`/api/v1/organizations/${org}/cohorts`).send({ name: 'Grupo A' }).expect(201)
    ).body.id as string;
    const fresh = t.nextEmail('invitee');
    const csv =
      'email,name,role,cohort\n' +
      `${fresh},Nueva Persona,student,grupo a\n` +
      `${existing.email},,teacher,Grupo A\n` +
      `${member.email},,,\n` +
      `${fresh.toUpperCase()},,,\n` +
      'not-an-email,,,\n' +
      `${t.nextEmail('x')},,wizard,\n` +
      `${t.nextEmail('y')},,,Grupo Z\n` +
      '=HYPERLINK("http://evil.test"),,,\n';
    const res = await upload(owner.agent, csv).expect(202);
    expect(res.body).toEqual({ id: expect.any(String), status: 'queued' });
    const status = await finished(res.body.id);
    expect(status).toEqual({
      id: res.body.id,
      status: 'completed',
      total: 8,
      processed: 8,
      invited: 1,
      added: 1,
      skipped: 2,
      failed: 4,
      report_url: `${t.baseUrl}/api/v1/organizations/${org}/members/import/${res.body.id}/report`,
      created_at: expect.any(String),
      finished_at: expect.any(String),
    });
    // The invitation email reached the unknown address with a link.
    const mail = await t.mail.waitForTo(fresh);
    expect(mail.text).toMatch(/http:\/\/web\.test\/invitations\/[A-Za-z0-9_-]{43}/);
    // The existing account is a teacher of the organization and of the cohort.
    const [membership] = await t.db.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [
      org,
      existing.user.id,
    ]);
    expect(membership.role).toBe('teacher');
    const [cm] = await t.db.query(`SELECT role FROM cohort_members WHERE cohort_id = $1 AND user_id = $2`, [
      cohort,
      existing.user.id,
    ]);
    expect(cm.role).toBe('teacher');
    const [inv] = await t.db.query(`SELECT role, cohort_id, import_id FROM invitations WHERE email = $1`, [fresh]);
    expect(inv).toEqual({ role: 'student', cohort_id: cohort, import_id: res.body.id });

    const report = await owner.agent
      .get(`/api/v1/organizations/${org}/members/import/${res.body.id}/report`)
      .buffer(true)
      .expect(200);
    expect(report.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(report.headers['content-disposition']).toMatch(/^attachment; filename="member-import-/);
    const text = report.text;
    expect(text.startsWith(BOM)).toBe(true);
    const lines = text.slice(1).trimEnd().split('\n');
    expect(lines[0]).toBe('row,email,outcome,reason');
    expect(lines).toHaveLength(9);
    expect(lines[1]).toBe(`1,${fresh},invited,`);
    expect(lines[2]).toBe(`2,${existing.email},added,`);
    expect(lines[3]).toBe(`3,${member.email},skipped,Already a member.`);
    expect(lines[4]).toBe(`4,${fresh.toUpperCase()},skipped,The address appears earlier in the file.`);
    expect(lines[5]).toBe('5,not-an-email,failed,The email address is not valid.');
    expect(lines[6]).toMatch(/^6,.*,failed,"Unknown role ""wizard""/);
    expect(lines[7]).toMatch(/^7,.*,failed,"No cohort named ""Grupo Z""/);
    // The formula cell is neutralized (prefixed with ') and quoted per RFC 4180.
    expect(lines[8]).toBe(`8,"'=HYPERLINK(""http://evil.test"")",failed,The email address is not valid.`);

    const [audit] = await t.db.query(
      `SELECT metadata FROM audit_log WHERE action = 'members.imported' AND target_id = $1`,
      [res.body.id],
    );
    expect(audit.metadata).toEqual({ total: 8, invited: 1, added: 1, skipped: 2, failed: 4 });
  });

  it('reads semicolon-separated files with a BOM', async () => {
    const a = await signIn(t);
    const res = await upload(owner.agent, `${BOM}email;name;role\r\n${a.email};"Pérez; Ana";student\r\n`).expect(202);
    const status = await finished(res.body.id);
    expect(status).toMatchObject({ added: 1, failed: 0 });
  });

  it('only an owner grants owner or admin through an import', async () => {
    const admin = await adult(t);
    await addMember(t, org, admin.user.id, 'admin');
    const someone = await signIn(t);
    const res = await upload(admin.agent, `email,role\n${someone.email},admin\n`).expect(202);
    const status = await finished(res.body.id, org, admin.agent);
    expect(status).toMatchObject({ failed: 1, added: 0 });
  });

  describe('limits and bad files', () => {
    it('accepts exactly 10 000 rows and refuses 10 001 with 413 import_too_large', async () => {
      const rows = (n: number): string => 'email\n' + Array.from({ length: n }, (_, i) => `bad-${i}`).join('\n') + '\n';
      const ok = await upload(owner.agent, rows(10_000)).expect(202);
      const tooMany = await upload(owner.agent, rows(10_001)).expect(413);
      expect(tooMany.body.error.code).toBe('import_too_large');
      const status = await finished(ok.body.id);
      expect(status).toMatchObject({ total: 10_000, failed: 10_000 });
    });

    it('accepts exactly 5 MiB and refuses one byte more with 413 import_too_large', async () => {
      const head = 'email,name\nbig@example.test,';
      const exact = Buffer.alloc(5 * 1024 * 1024, 'a');
      exact.write(head, 0, 'utf8');
      exact.write('\n', exact.length - 1, 'utf8');
      const ok = await upload(owner.agent, exact).expect(202);
      const over = Buffer.concat([exact, Buffer.from('a')]);
      const res = await upload(owner.agent, over).expect(413);
      expect(res.body.error.code).toBe('import_too_large');
      await finished(ok.body.id);
    });

    it.each([
      ['name,role\nAna,student\n', 'no email column'],
      ['email,mail\na@b.test,x\n', 'unknown column'],
      ['email\n', 'no rows'],
      ['', 'empty file'],
    ])('422 invalid_csv for %j (%s), and nothing is created', async (content) => {
      const before = await t.db.query(`SELECT count(*)::int AS n FROM member_imports`);
      const res = await upload(owner.agent, content).expect(422);
      expect(res.body.error.code).toBe('invalid_csv');
      const after = await t.db.query(`SELECT count(*)::int AS n FROM member_imports`);
      expect(after[0].n).toBe(before[0].n);
    });

    it('422 invalid_csv for a file that is not UTF-8', async () => {
      const res = await upload(owner.agent, Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0xe9, 0x0a])).expect(422);
      expect(res.body.error.code).toBe('invalid_csv');
    });

    it('422 validation_error without a file part', async () => {
      const res = await owner.agent.post(`/api/v1/organizations/${org}/members/import`).field('other', 'x').expect(422);
      expect(res.body.error.details[0].field).toBe('file');
    });
  });

  describe('status and report', () => {
    it('404 for an unknown import, one of another organization, and a malformed id', async () => {
      const other = await adult(t);
      const otherOrg = await createOrganization(t, other, 'Other Import Org');
      const theirs = (await upload(other.agent, `email\n${t.nextEmail('o')}\n`, otherOrg).expect(202)).body.id;
      await owner.agent.get(`/api/v1/organizations/${org}/members/import/${theirs}`).expect(404);
      await owner.agent.get(`/api/v1/organizations/${org}/members/import/${theirs}/report`).expect(404);
      await owner.agent
        .get(`/api/v1/organizations/${org}/members/import/00000000-0000-4000-8000-000000000000`)
        .expect(404);
      await owner.agent.get(`/api/v1/organizations/${org}/members/import/nope`).expect(404);
      await finished(theirs, otherOrg, other.agent);
    });

    it('409 import_not_finished for the report of a running import', async () => {
      const [record] = await t.db.query(
        `INSERT INTO member_imports (organization_id, created_by, status, total) VALUES ($1, $2, 'running', 1) RETURNING id`,
        [org, owner.user.id],
      );
      const res = await owner.agent.get(`/api/v1/organizations/${org}/members/import/${record.id}/report`).expect(409);
      expect(res.body.error.code).toBe('import_not_finished');
      const status = await owner.agent.get(`/api/v1/organizations/${org}/members/import/${record.id}`).expect(200);
      expect(status.body).toMatchObject({ status: 'running', report_url: null, finished_at: null });
    });
  });

  describe('a worker crash in the middle resumes without duplicating invitations or memberships', () => {
    // More than one batch, so a crash can fall between two batches or inside the second.
    const FRESH = IMPORT_BATCH + 447;

    async function crashOnce(setup: (repo: MemberImportRepository) => jest.SpyInstance): Promise<void> {
      const existing: SignedIn[] = [];
      for (let i = 0; i < 3; i++) existing.push(await signIn(t));
      const fresh = Array.from({ length: FRESH }, () => t.nextEmail('crash'));
      // One existing account in each batch, and one repeated address across the batches.
      const csv =
        'email\n' +
        [existing[0].email, ...fresh.slice(0, IMPORT_BATCH), existing[1].email, fresh[0].toUpperCase()]
          .concat(fresh.slice(IMPORT_BATCH), [existing[2].email])
          .join('\n') +
        '\n';
      const spy = setup(t.app.get(MemberImportRepository));
      const res = await upload(owner.agent, csv).expect(202);
      const status = await finished(res.body.id);
      expect(spy).toHaveBeenCalled();
      spy.mockRestore();
      expect(status).toMatchObject({
        status: 'completed',
        total: FRESH + 4,
        processed: FRESH + 4,
        invited: FRESH,
        added: 3,
        skipped: 1,
        failed: 0,
      });
      const [repeated] = await t.db.query(
        `SELECT outcome, reason FROM member_import_rows WHERE import_id = $1 AND email = $2`,
        [res.body.id, fresh[0].toUpperCase()],
      );
      expect(repeated).toEqual({ outcome: 'skipped', reason: 'The address appears earlier in the file.' });
      const [{ n: invitations }] = await t.db.query(`SELECT count(*)::int AS n FROM invitations WHERE import_id = $1`, [
        res.body.id,
      ]);
      expect(invitations).toBe(FRESH);
      const [{ n: sent }] = await t.db.query(
        `SELECT count(*)::int AS n FROM audit_log WHERE action = 'invitation.sent' AND metadata->>'import_id' = $1`,
        [res.body.id],
      );
      expect(sent).toBe(FRESH);
      const [{ n: members }] = await t.db.query(
        `SELECT count(*)::int AS n FROM memberships WHERE organization_id = $1 AND user_id = ANY($2::uuid[])`,
        [org, existing.map((e) => e.user.id)],
      );
      expect(members).toBe(3);
      const [{ n: joined }] = await t.db.query(
        `SELECT count(*)::int AS n FROM domain_events WHERE name = 'member.joined' AND organization_id = $1
           AND payload->>'user_id' = ANY($2::text[])`,
        [org, existing.map((e) => e.user.id)],
      );
      expect(joined).toBe(3);
      const [{ n: rowsWithoutOutcome }] = await t.db.query(
        `SELECT count(*)::int AS n FROM member_import_rows WHERE import_id = $1 AND outcome IS NULL`,
        [res.body.id],
      );
      expect(rowsWithoutOutcome).toBe(0);
      // One invitation email per address, even for rows processed before the crash.
      await waitUntil(() => fresh.every((e) => t.mail.to(e).length >= 1), {
        what: 'all invitation emails',
        timeoutMs: 60_000,
      });
      for (const e of fresh) expect(t.mail.to(e)).toHaveLength(1);
    }

    // Each runs about 950 rows with a crash and the job's retry: allowed 3 minutes on a loaded two-core machine.
    it('between batches (after the first batch committed)', async () => {
      await crashOnce((repo) => {
        const real = repo.pendingBatch.bind(repo);
        let calls = 0;
        return jest.spyOn(repo, 'pendingBatch').mockImplementation(async (orgId, id, size) => {
          calls++;
          if (calls === 2) throw new Error('worker died');
          return real(orgId, id, size);
        });
      });
    }, 180_000);

    it('inside a batch (its rows roll back and run again)', async () => {
      await crashOnce((repo) => {
        const real = repo.setOutcomes.bind(repo);
        let calls = 0;
        // The second batch's outcomes, its invitations and memberships already written in the transaction.
        return jest.spyOn(repo, 'setOutcomes').mockImplementation(async (...args) => {
          calls++;
          if (calls === 2) throw new Error('worker died');
          return real(...args);
        });
      });
    }, 180_000);
  });

  describe('batches decide as the rows would one by one, in file order', () => {
    const accounts = async (n: number, tag: string): Promise<{ id: string; email: string }[]> => {
      const emails = Array.from({ length: n }, () => t.nextEmail(tag));
      return t.db.query(
        `INSERT INTO users (email, username, created_at, updated_at)
         SELECT e, 'u' || md5(e), now(), now() FROM unnest($1::text[]) AS e RETURNING id, email`,
        [emails],
      );
    };
    const report = async (id: string): Promise<string[]> =>
      (
        await t.db.query(
          `SELECT row_number, outcome, coalesce(reason, '') AS reason FROM member_import_rows WHERE import_id = $1
           ORDER BY row_number`,
          [id],
        )
      ).map((r: { row_number: number; outcome: string; reason: string }) => `${r.row_number} ${r.outcome} ${r.reason}`);

    it('the member limit reached in the middle of a batch: earlier newcomers join, later ones fail, invitations go on', async () => {
      const orgId = await createOrganization(t, owner, 'Limited Import Org');
      const cohort = (
        await owner.agent.post(`/api/v1/organizations/${orgId}/cohorts`).send({ name: 'Grupo L' }).expect(201)
      ).body.id as string;
      const [member, a, b, c, d] = await accounts(5, 'limit');
      await addMember(t, orgId, member.id, 'student');
      // The owner and `member` are in: two places left.
      await t.db.query(`UPDATE organizations SET member_limit = 4 WHERE id = $1`, [orgId]);
      const invitee = t.nextEmail('limit-invitee');
      const csv =
        'email,role,cohort\n' +
        [
          `${member.email},,`, // 1 already a member (takes no place)
          `${a.email},teacher,grupo l`, // 2 added (place 3), and in the cohort as teacher
          `${invitee},,`, // 3 invited (invitations take no place)
          `${b.email},,`, // 4 added (place 4)
          `${a.email.toUpperCase()},,`, // 5 repeated
          `${c.email},,Grupo L`, // 6 limit reached
          `${c.email},,`, // 7 limit reached again (not handled earlier, so not "repeated")
          `${member.email},,`, // 8 already a member, even at the limit
          `${d.email},,`, // 9 limit reached
          `${invitee},,`, // 10 repeated
        ].join('\n') +
        '\n';
      const res = await upload(owner.agent, csv, orgId).expect(202);
      const status = await finished(res.body.id, orgId);
      expect(status).toMatchObject({ status: 'completed', invited: 1, added: 2, skipped: 4, failed: 3 });
      const limit = 'The organization has reached the member limit of its plan.';
      expect(await report(res.body.id)).toEqual([
        '1 skipped Already a member.',
        '2 added ',
        '3 invited ',
        '4 added ',
        '5 skipped The address appears earlier in the file.',
        `6 failed ${limit}`,
        `7 failed ${limit}`,
        '8 skipped Already a member.',
        `9 failed ${limit}`,
        '10 skipped The address appears earlier in the file.',
      ]);
      const members = await t.db.query(
        `SELECT user_id, role FROM memberships WHERE organization_id = $1 AND user_id = ANY($2::uuid[]) ORDER BY role`,
        [orgId, [a.id, b.id, c.id, d.id]],
      );
      expect(members).toEqual([
        { user_id: b.id, role: 'student' },
        { user_id: a.id, role: 'teacher' },
      ]);
      const inCohort = await t.db.query(`SELECT user_id, role FROM cohort_members WHERE cohort_id = $1`, [cohort]);
      expect(inCohort).toEqual([{ user_id: a.id, role: 'teacher' }]);
      const joined = await t.db.query(
        `SELECT actor_id, payload FROM domain_events WHERE name = 'member.joined' AND organization_id = $1
           AND payload->>'user_id' = ANY($2::text[]) ORDER BY payload->>'role'`,
        [orgId, [a.id, b.id, c.id, d.id]],
      );
      expect(joined).toEqual([
        { actor_id: owner.user.id, payload: { user_id: b.id, role: 'student' } },
        { actor_id: owner.user.id, payload: { user_id: a.id, role: 'teacher' } },
      ]);
      const [invitation] = await t.db.query(
        `SELECT role, cohort_id, status FROM invitations WHERE organization_id = $1 AND email = $2`,
        [orgId, invitee],
      );
      expect(invitation).toEqual({ role: 'student', cohort_id: null, status: 'pending' });
      const [{ n: count }] = await t.db.query(`SELECT count(*)::int AS n FROM memberships WHERE organization_id = $1`, [
        orgId,
      ]);
      expect(count).toBe(4);
    });
  });

  it('needs owner or admin: a teacher gets 403', async () => {
    const teacher = await adult(t);
    await addMember(t, org, teacher.user.id, 'teacher');
    await upload(teacher.agent, 'email\na@b.test\n').expect(403);
  });

  it('a suspended organization fails a queued import when its job runs', async () => {
    const o = await adult(t);
    const orgId = await createOrganization(t, o, 'Soon suspended');
    // The job's first read of the import (nothing else reads it before the job runs).
    const repoSpy = jest.spyOn(t.app.get(MemberImportRepository), 'find');
    repoSpy.mockImplementationOnce(async (organizationId, id) => {
      await t.app.get(OrganizationsService).setSuspended(orgId, true, 'test', o.user.id, undefined);
      return t.app.get(MemberImportRepository).find(organizationId, id);
    });
    const res = await upload(o.agent, `email\n${t.nextEmail('s')}\n`, orgId).expect(202);
    await waitUntil(
      async () =>
        (await t.db.query(`SELECT status FROM member_imports WHERE id = $1`, [res.body.id]))[0].status === 'failed',
    );
    repoSpy.mockRestore();
    const [row] = await t.db.query(`SELECT error FROM member_imports WHERE id = $1`, [res.body.id]);
    expect(row.error).toBe('The organization is suspended.');
  });

  it("a job naming another organization finds the import nowhere and changes nothing; its own organization's runs it", async () => {
    const other = await createOrganization(t, owner, 'Other Import Org');
    const email = t.nextEmail('scoped');
    // A queued import whose job has not run (written directly, so no job is enqueued for it).
    const [record] = await t.db.query(
      `INSERT INTO member_imports (organization_id, created_by, status, total, created_at)
       VALUES ($1, $2, 'queued', 1, now()) RETURNING id`,
      [org, owner.user.id],
    );
    await t.db.query(`INSERT INTO member_import_rows (import_id, row_number, email) VALUES ($1, 2, $2)`, [
      record.id,
      email,
    ]);
    const imports = t.app.get(MemberImportService);
    const state = async () =>
      (
        await t.db.query(
          `SELECT i.status, i.error, r.outcome FROM member_imports i JOIN member_import_rows r ON r.import_id = i.id
           WHERE i.id = $1`,
          [record.id],
        )
      )[0];

    await imports.run(record.id, other);
    await imports.run(record.id, null);
    expect(await state()).toEqual({ status: 'queued', error: null, outcome: null });

    await imports.run(record.id, org);
    expect(await state()).toEqual({ status: 'completed', error: null, outcome: 'invited' });
  });
});
