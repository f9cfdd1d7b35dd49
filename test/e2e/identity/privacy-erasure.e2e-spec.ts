import { Injectable, Module } from '@nestjs/common';
import { TransactionRunner } from '@/core/database/transaction';
import {
  type EraseContext,
  PERSONAL_COLUMN,
  PersonalData,
  type PersonalDataHandler,
  PersonalDataRegistry,
} from '@/core/privacy/personal-data';
import { SchedulerService } from '@/core/queue/scheduler.service';
import type { ScheduleDefinition } from '@/core/queue/schedule';
import { ErasureService, eraserStep, STEP_FINISH, STEP_OWNERS } from '@/modules/identity/privacy';
import { ERASURE_REMINDERS, RUN_DUE_ERASURES } from '@/modules/identity/privacy/testing';
import { makeCourse } from '../../cross-tenant/learning.routes';
import { signIn, type SignedIn, stepUpByEmail } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { backgroundIdle, waitUntil } from '../../support/wait';

const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;

/** Erasers added by the test: one that counts its runs (early), one that can be made to throw (late). */
const probe = { calls: [] as string[], failures: 0 };

@Injectable()
@PersonalData({ area: 'probe', key: 'early', tables: [], eraseOrder: 15 })
class EarlyProbeEraser implements PersonalDataHandler {
  export() {
    return Promise.resolve([]);
  }
  erase({ userId }: EraseContext) {
    probe.calls.push(`early:${userId}`);
    return Promise.resolve();
  }
}

@Injectable()
@PersonalData({ area: 'probe', key: 'flaky', tables: [], eraseOrder: 300 })
class FlakyProbeEraser implements PersonalDataHandler {
  export() {
    return Promise.resolve([]);
  }
  erase({ userId }: EraseContext) {
    probe.calls.push(`flaky:${userId}`);
    if (probe.failures > 0) {
      probe.failures--;
      return Promise.reject(new Error('planned eraser failure'));
    }
    return Promise.resolve();
  }
}

@Module({ providers: [EarlyProbeEraser, FlakyProbeEraser] })
class ProbeErasersModule {}

/** Erasure (extensions-v2 17.3, 17.4, 17.7): scheduling, cancelling, the resumable run and what it leaves. */
describe('privacy: erasure', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ imports: [ProbeErasersModule] });
  });
  afterAll(() => t.close());

  const schedule = async (s: SignedIn, body: Record<string, unknown> = {}) => {
    await stepUpByEmail(t, s);
    return s.agent.post('/api/v1/me/privacy/erasure').send(body);
  };

  async function runSchedule(def: ScheduleDefinition): Promise<void> {
    const jobId = await t.app.get(SchedulerService).enqueue(def, t.clock.now());
    await waitUntil(
      async () => (await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [jobId]))[0]?.status === 'completed',
      { what: def.name },
    );
  }

  /** Every (table, column) of the live schema that can name a person by id, with the rows naming `userId`. */
  async function rowsNaming(userId: string, email: string): Promise<Record<string, number>> {
    const columns = await t.db.query<{ table_name: string; column_name: string; data_type: string }[]>(
      `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
       JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
       WHERE c.table_schema = 'public' AND tb.table_type = 'BASE TABLE' ORDER BY 1, 2`,
    );
    const out: Record<string, number> = {};
    const exempt = t.app.get(PersonalDataRegistry).exemptions();
    for (const c of columns) {
      if (c.table_name in exempt) continue;
      if (!PERSONAL_COLUMN.test(c.column_name) && c.column_name !== 'id') continue;
      if (c.column_name === 'id' && c.table_name !== 'users') continue;
      const value = c.data_type === 'uuid' ? userId : c.data_type === 'text' ? email : null;
      if (value === null) continue;
      const [{ n }] = await t.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM "${c.table_name}" WHERE "${c.column_name}" = $1`,
        [value],
      );
      if (n > 0) out[`${c.table_name}.${c.column_name}`] = n;
    }
    return out;
  }

  describe('scheduling and cancelling', () => {
    it('needs a step-up; schedules 14 days ahead with an email and an audit entry; one at a time; cancel until then', async () => {
      const s = await adult(t);
      const refused = await s.agent.post('/api/v1/me/privacy/erasure').send({});
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('step_up_required');
      await stepUpByEmail(t, s);
      await s.agent.post('/api/v1/me/privacy/erasure').send({ keep_certificate_names: 'yes' }).expect(422);
      await s.agent.post('/api/v1/me/privacy/erasure').send({ keep_certificate_names: null }).expect(422);
      expect(await t.db.query(`SELECT 1 FROM account_erasures WHERE user_id = $1`, [s.user.id])).toEqual([]);

      const before = t.mail.count();
      const res = await s.agent.post('/api/v1/me/privacy/erasure').send({ keep_certificate_names: true }).expect(202);
      expect(res.body).toEqual({
        status: 'scheduled',
        requested_at: expect.any(String),
        scheduled_for: new Date(Date.parse(res.body.requested_at) + 14 * DAY).toISOString(),
        keep_certificate_names: true,
      });
      const mail = await t.mail.waitForTo(s.email, { after: before, subject: /borrará en 14 días/ });
      expect(mail.text).toContain('http://web.test/settings/privacy');
      const again = await s.agent.post('/api/v1/me/privacy/erasure').send({}).expect(409);
      expect(again.body.error.code).toBe('erasure_already_scheduled');
      const record = (await s.agent.get('/api/v1/me/privacy').expect(200)).body;
      expect(record.erasure).toEqual(res.body);
      // The account works normally meanwhile.
      await s.agent.patch('/api/v1/me/profile').send({ bio: 'Still here' }).expect(200);

      const cancelMail = t.mail.count();
      await s.agent.delete('/api/v1/me/privacy/erasure').expect(204);
      await t.mail.waitForTo(s.email, { after: cancelMail, subject: /cancelado el borrado/ });
      await s.agent.delete('/api/v1/me/privacy/erasure').expect(404);
      expect((await s.agent.get('/api/v1/me/privacy').expect(200)).body.erasure.status).toBe('none');
      const audit = await t.db.query(
        `SELECT action, organization_id, target_id FROM audit_log WHERE actor_id = $1 AND action LIKE 'account.%'
         ORDER BY created_at, action`,
        [s.user.id],
      );
      expect(audit).toEqual([
        { action: 'account.erasure_scheduled', organization_id: null, target_id: s.user.id },
        { action: 'account.erasure_cancelled', organization_id: null, target_id: s.user.id },
      ]);
      // A cancelled erasure never runs, even when its time comes.
      const [{ id }] = await t.db.query(`SELECT id FROM account_erasures WHERE user_id = $1`, [s.user.id]);
      expect(await t.app.get(ErasureService).run(id)).toBe('skipped');
    });

    it('the only owner of an organization with other members cannot: 409 sole_owner, nothing scheduled', async () => {
      const s = await adult(t);
      const org = await createOrganization(t, s, 'Sole-owned');
      const member = await adult(t);
      await addMember(t, org, member.user.id, 'student');
      const res = await schedule(s);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('sole_owner');
      // A second owner lifts it.
      await addMember(t, org, (await adult(t)).user.id, 'owner');
      await s.agent.post('/api/v1/me/privacy/erasure').send({}).expect(202);
    });
  });

  describe('the run', () => {
    let a: SignedIn;
    let b: SignedIn;
    let shared: string;
    let aloneOrg: string;
    let handedOrg: string;
    let certificateCode: string;
    let erasureId: string;
    let bBefore: Record<string, number>;
    let firstAdminId: string;

    beforeAll(async () => {
      const owner = await adult(t);
      shared = await createOrganization(t, owner, 'Shared');
      a = await adult(t);
      b = await adult(t);
      for (const p of [a, b]) {
        await p.agent
          .patch('/api/v1/me/profile')
          .send({ name: `Name of ${p.email}` })
          .expect(200);
        await addMember(t, shared, p.user.id, 'student');
        await p.agent.post('/api/v1/me/privacy/consents').send({ kind: 'terms', granted: true }).expect(201);
      }
      const course = await makeCourse(t, owner.user.id, { title: 'Erasure course', issues_certificate: true });
      for (const p of [a, b]) {
        await p.agent.post(`/api/v1/organizations/${shared}/courses/${course.id}/enroll`).expect(201);
        await p.agent
          .post(`/api/v1/organizations/${shared}/courses/${course.id}/lessons/${course.lessons[0].id}/complete`)
          .expect(200);
      }
      [{ code: certificateCode }] = await t.db.query(`SELECT code FROM issued_certificates WHERE user_id = $1`, [
        a.user.id,
      ]);
      // A owns two organizations alone; after the request, people join one of them.
      aloneOrg = await createOrganization(t, a, 'Left alone');
      handedOrg = await createOrganization(t, a, 'Handed over');
      const res = await schedule(a);
      expect(res.status).toBe(202);
      const student = await adult(t);
      const teacher = await adult(t);
      const firstAdmin = await adult(t);
      const laterAdmin = await adult(t);
      await addMember(t, handedOrg, student.user.id, 'student');
      await addMember(t, handedOrg, teacher.user.id, 'teacher');
      t.clock.advance(1_000);
      await addMember(t, handedOrg, firstAdmin.user.id, 'admin');
      t.clock.advance(1_000);
      await addMember(t, handedOrg, laterAdmin.user.id, 'admin');
      firstAdminId = firstAdmin.user.id;
      [{ id: erasureId }] = await t.db.query(`SELECT id FROM account_erasures WHERE user_id = $1`, [a.user.id]);
      bBefore = await rowsNaming(b.user.id, b.email);
    });

    it('reminds once 24 h before', async () => {
      t.clock.advance(13 * DAY - 2 * HOUR);
      await runSchedule(ERASURE_REMINDERS);
      expect(t.mail.to(a.email).filter((m) => /mañana/.test(m.subject))).toHaveLength(0);
      t.clock.advance(3 * HOUR);
      const before = t.mail.count();
      await runSchedule(ERASURE_REMINDERS);
      await t.mail.waitForTo(a.email, { after: before, subject: /borrará mañana/ });
      await runSchedule(ERASURE_REMINDERS);
      await backgroundIdle(t, 'the second reminder run');
      expect(t.mail.to(a.email).filter((m) => /mañana/.test(m.subject))).toHaveLength(1);
      expect(await t.app.get(ErasureService).run(erasureId)).toBe('skipped'); // not due yet
    });

    it('a failing eraser stops the run; the next run resumes at that step without redoing the others', async () => {
      t.clock.advance(DAY);
      probe.calls.length = 0;
      probe.failures = 1;
      const erasure = t.app.get(ErasureService);
      await expect(erasure.run(erasureId)).rejects.toThrow('planned eraser failure');
      const [row] = await t.db.query(`SELECT status, steps_done, lease_until FROM account_erasures WHERE id = $1`, [
        erasureId,
      ]);
      const registry = t.app.get(PersonalDataRegistry);
      const before = registry.handlers().filter((h) => h.eraseOrder < 300);
      expect(row.status).toBe('running');
      expect(row.lease_until).toBeNull();
      expect(row.steps_done).toEqual([STEP_OWNERS, ...before.map((h) => eraserStep(h.area, h.key))]);
      expect(probe.calls.filter((c) => c.endsWith(a.user.id))).toEqual([`early:${a.user.id}`, `flaky:${a.user.id}`]);
      // Earlier steps are committed: A's sessions are gone already, the account is not a tombstone yet.
      expect(await t.db.query(`SELECT 1 FROM sessions WHERE user_id = $1`, [a.user.id])).toEqual([]);
      expect((await t.db.query(`SELECT erased_at FROM users WHERE id = $1`, [a.user.id]))[0].erased_at).toBeNull();
      // The schedule finds it and the job resumes.
      const before2 = t.mail.count();
      await runSchedule(RUN_DUE_ERASURES);
      await waitUntil(
        async () =>
          (await t.db.query(`SELECT status FROM account_erasures WHERE id = $1`, [erasureId]))[0].status ===
          'completed',
        { what: 'the erasure' },
      );
      expect(probe.calls.filter((c) => c.endsWith(a.user.id))).toEqual([
        `early:${a.user.id}`,
        `flaky:${a.user.id}`,
        `flaky:${a.user.id}`,
      ]);
      const [done] = await t.db.query(`SELECT steps_done, former_email FROM account_erasures WHERE id = $1`, [
        erasureId,
      ]);
      expect(done.steps_done).toEqual([
        STEP_OWNERS,
        ...registry.handlers().map((h) => eraserStep(h.area, h.key)),
        STEP_FINISH,
      ]);
      expect(done.former_email).toBeNull();
      const mail = await t.mail.waitForTo(a.email, { after: before2, subject: /se ha borrado/ });
      expect(mail.to).toContain(a.email);
    });

    it('leaves no row naming the person but the kept ones; the tombstone; certificates verify without the name', async () => {
      expect(await rowsNaming(a.user.id, a.email)).toEqual({
        'account_erasures.user_id': 1,
        'audit_log.actor_id': expect.any(Number),
        'issued_certificates.user_id': 1,
        'users.id': 1,
      });
      const [tomb] = await t.db.query(`SELECT * FROM users WHERE id = $1`, [a.user.id]);
      expect(tomb).toMatchObject({
        email: `erased+${a.user.id}@erased.invalid`,
        name: null,
        age_bracket: null,
        age_bracket_managed_by: null,
        erased_at: expect.any(Date),
      });
      const verified = await t.client().get(`/api/v1/public/certificates/verify/${certificateCode}`).expect(200);
      expect(verified.body).toMatchObject({ status: 'valid', holder_name: null });
      await a.agent.get('/api/v1/auth/me').expect(401);
      const audit = await t.db.query(
        `SELECT actor_id, organization_id FROM audit_log WHERE action = 'account.erased' AND target_id = $1`,
        [a.user.id],
      );
      expect(audit).toEqual([{ actor_id: null, organization_id: null }]);
    });

    it('hands an organization over to the longest-standing admin and suspends one left empty', async () => {
      const owners = await t.db.query(`SELECT user_id FROM memberships WHERE organization_id = $1 AND role = 'owner'`, [
        handedOrg,
      ]);
      expect(owners).toEqual([{ user_id: firstAdminId }]);
      const audit = await t.db.query(
        `SELECT actor_id, target_id, metadata FROM audit_log WHERE action = 'member.role_changed' AND organization_id = $1`,
        [handedOrg],
      );
      expect(audit).toEqual([
        {
          actor_id: null,
          target_id: firstAdminId,
          metadata: { from: 'admin', to: 'owner', reason: 'owner_erased' },
        },
      ]);
      const [alone] = await t.db.query(`SELECT status, suspended_reason FROM organizations WHERE id = $1`, [aloneOrg]);
      expect(alone).toEqual({ status: 'suspended', suspended_reason: 'owner_erased' });
    });

    it('leaves the other person as they were, is idempotent, and the address can sign up again as someone new', async () => {
      expect(await rowsNaming(b.user.id, b.email)).toEqual(bBefore);
      const snapshot = async () => ({
        user: (await t.db.query(`SELECT * FROM users WHERE id = $1`, [a.user.id]))[0],
        erasure: (await t.db.query(`SELECT * FROM account_erasures WHERE id = $1`, [erasureId]))[0],
        rows: await rowsNaming(a.user.id, a.email),
      });
      const once = await snapshot();
      expect(await t.app.get(ErasureService).run(erasureId)).toBe('skipped');
      // Every eraser run a second time (what a crashed step redoes) changes nothing.
      await t.app.get(TransactionRunner).run(async (tx) => {
        for (const h of t.app.get(PersonalDataRegistry).handlers()) {
          await h.handler.erase({ userId: a.user.id, tx, now: t.clock.now(), keepCertificateNames: false });
        }
      });
      expect(await snapshot()).toEqual(once);
      const again = await signIn(t, a.email);
      expect(again.user.id).not.toBe(a.user.id);
      expect((await again.agent.get('/api/v1/me/privacy').expect(200)).body.consents[0]).toMatchObject({
        kind: 'terms',
        granted: false,
      });
    });
  });
});
