import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import { UNSUBSCRIBE_PATH, verifyUnsubscribeToken } from '@/core/mail/unsubscribe-token';
import { collectRows, PersonalDataRegistry } from '@/core/privacy/personal-data';
import { JobRunner } from '@/core/queue/job-runner';
import { AnnouncementEmails } from '@/modules/community/announcements/testing';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersRepository } from '@/modules/identity/users/testing';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const ADMIN_EMAIL = 'announcements-admin@ops.test';
const ADMIN_PATH = '/api/v1/admin/announcements';
const CURRENT = '/api/v1/announcements/current';
const HOUR = 3_600_000;
/** Shorter than an access token's life (15 minutes): sessions stay valid when the Clock moves this far. */
const SOON = 10 * 60_000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type Body = Record<string, unknown>;
/** An admin record as answered (the fields the tests read). */
interface Rec extends Body {
  id: string;
  starts_at: string;
  ends_at: string | null;
  updated_at: string;
}

const es = (title: string, body_md = 'Cuerpo') => ({ es: { title, body_md } });

/**
 * Announcements (extensions-v2 18): the admin record, platform and organization administration, the reader's
 * current announcements (audience by roles, organizations and cohorts; window; locale fallback; order), dismissals,
 * and the email sent once at `starts_at` to the consenting audience (everyone for critical ones) with the RFC 8058
 * headers.
 */
describe('announcements', () => {
  let t: TestApp;
  let admin: SignedIn;
  let orgA: string;
  let orgB: string;
  let cohortX: string;
  let cohortB: string;
  const A = {} as Record<'owner' | 'admin' | 'teacher' | 'inCohort' | 'outOfCohort', SignedIn>;
  let ownerB: SignedIn;
  let both: SignedIn; // student of A, teacher of B
  let loner: SignedIn; // in no organization

  const orgPath = (org: string): string => `/api/v1/organizations/${org}/announcements`;

  async function platform(body: Body): Promise<Rec> {
    const res = await admin.agent.post(ADMIN_PATH).send(body);
    if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function ofOrg(org: string, owner: SignedIn, body: Body): Promise<Rec> {
    const res = await owner.agent.post(orgPath(org)).send(body);
    if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function currentIds(s: SignedIn, organizationId?: string): Promise<string[]> {
    const res = await s.agent.get(CURRENT).query(organizationId ? { organization_id: organizationId } : {});
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body.items.map((i: { id: string }) => i.id);
  }

  const inFuture = (ms: number): string => new Date(t.clock.nowMs() + ms).toISOString();

  async function auditOf(action: string, targetId: string): Promise<Body[]> {
    return t.db.query(
      `SELECT actor_id, organization_id, target_type, metadata FROM audit_log WHERE action = $1 AND target_id = $2`,
      [action, targetId],
    );
  }

  async function count(): Promise<number> {
    return (await t.db.query(`SELECT count(*)::int AS n FROM announcements`))[0].n;
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL } });
    admin = await adult(t, ADMIN_EMAIL);
    A.owner = await adult(t);
    orgA = await createOrganization(t, A.owner, 'Org A');
    for (const [key, role] of [
      ['admin', 'admin'],
      ['teacher', 'teacher'],
      ['inCohort', 'student'],
      ['outOfCohort', 'student'],
    ] as const) {
      A[key] = await adult(t);
      await addMember(t, orgA, A[key].user.id, role);
    }
    cohortX = (await A.owner.agent.post(`/api/v1/organizations/${orgA}/cohorts`).send({ name: 'X' }).expect(201)).body
      .id;
    for (const [s, role] of [
      [A.inCohort, 'student'],
      [A.teacher, 'teacher'],
    ] as const) {
      await A.owner.agent
        .post(`/api/v1/organizations/${orgA}/cohorts/${cohortX}/members`)
        .send({ user_id: s.user.id, role })
        .expect(201);
    }
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Org B');
    cohortB = (await ownerB.agent.post(`/api/v1/organizations/${orgB}/cohorts`).send({ name: 'B1' }).expect(201)).body
      .id;
    both = await adult(t);
    await addMember(t, orgA, both.user.id, 'student');
    await addMember(t, orgB, both.user.id, 'teacher');
    loner = await adult(t);
  });
  afterAll(() => t.close());

  describe('platform administration', () => {
    it('creates with defaults and answers the admin record (audited)', async () => {
      const before = t.clock.nowMs();
      const record = await platform({ translations: es('Hola', 'Bienvenida **a todos**') });
      expect(record).toEqual({
        id: expect.any(String),
        scope: 'platform',
        organization_id: null,
        translations: { es: { title: 'Hola', body_md: 'Bienvenida **a todos**' } },
        severity: 'info',
        audience: { roles: [], organization_ids: [], cohort_ids: [] },
        starts_at: expect.stringMatching(ISO),
        ends_at: null,
        dismissible: true,
        email: false,
        emailed_at: null,
        created_by: { user_id: admin.user.id },
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(Date.parse(record.starts_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(await auditOf('announcement.created', record.id)).toEqual([
        {
          actor_id: admin.user.id,
          organization_id: null,
          target_type: 'announcement',
          metadata: { scope: 'platform', severity: 'info', by_email: false },
        },
      ]);
      const got = await admin.agent.get(`${ADMIN_PATH}/${record.id}`).expect(200);
      expect(got.body).toEqual(record);
    });

    it('takes every field, at the limits', async () => {
      const starts = inFuture(HOUR);
      const record = await platform({
        translations: { es: { title: 't'.repeat(120), body_md: 'b'.repeat(2000) }, en: { title: 'T', body_md: '' } },
        severity: 'warning',
        audience: { roles: ['owner', 'teacher'], organization_ids: [orgA.toUpperCase(), orgB] },
        starts_at: starts,
        ends_at: inFuture(2 * HOUR),
        dismissible: false,
        email: false,
      });
      expect(record).toMatchObject({
        severity: 'warning',
        audience: { roles: ['owner', 'teacher'], organization_ids: [orgA, orgB], cohort_ids: [] },
        starts_at: starts,
        dismissible: false,
      });
    });

    it('a critical announcement is never dismissible', async () => {
      expect((await platform({ translations: es('Crítico'), severity: 'critical' })).dismissible).toBe(false);
      const res = await admin.agent
        .post(ADMIN_PATH)
        .send({ translations: es('Crítico'), severity: 'critical', dismissible: true });
      expect([res.status, res.body.error.details]).toEqual([
        422,
        [{ field: 'dismissible', message: 'a critical announcement cannot be dismissible' }],
      ]);
    });

    it('refuses bad input with 422 and creates nothing', async () => {
      const before = await count();
      const now = t.clock.now().toISOString();
      for (const body of [
        {},
        { translations: {} },
        { translations: { fr: { title: 'x', body_md: '' } } },
        { translations: { es: { title: '', body_md: '' } } },
        { translations: { es: { title: 't'.repeat(121), body_md: '' } } },
        { translations: { es: { title: 'x', body_md: 'b'.repeat(2001) } } },
        { translations: { es: { title: 'x' } } },
        { translations: es('x'), starts_at: now, ends_at: now },
        { translations: es('x'), starts_at: now, ends_at: new Date(t.clock.nowMs() - 1000).toISOString() },
        { translations: es('x'), starts_at: '2026-13-01T00:00:00Z' },
        { translations: es('x'), starts_at: '2026-11-01' },
        { translations: es('x'), severity: 'urgent' },
        { translations: es('x'), audience: { roles: ['editor'] } },
        { translations: es('x'), audience: { roles: ['owner', 'owner'] } },
        { translations: es('x'), audience: { cohort_ids: [cohortX] } },
        { translations: es('x'), audience: { organization_ids: ['not-a-uuid'] } },
        { translations: es('x'), audience: { organization_ids: ['00000000-0000-4000-8000-000000000001'] } },
        {
          translations: es('x'),
          audience: {
            organization_ids: Array.from(
              { length: 101 },
              (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
            ),
          },
        },
        { translations: es('x'), email: 'yes' },
        { translations: es('x'), extra: true },
      ]) {
        const res = await admin.agent.post(ADMIN_PATH).send(body);
        expect([JSON.stringify(body).slice(0, 80), res.status, res.body.error?.code]).toEqual([
          JSON.stringify(body).slice(0, 80),
          422,
          'validation_error',
        ]);
      }
      expect(await count()).toBe(before);
    });

    it('lists platform announcements newest start first, by status', async () => {
      const scheduled = await platform({ translations: es('Programado'), starts_at: inFuture(5 * HOUR) });
      const active = await platform({ translations: es('Activo'), starts_at: inFuture(-HOUR) });
      const ended = await platform({
        translations: es('Terminado'),
        starts_at: inFuture(-3 * HOUR),
        ends_at: inFuture(-2 * HOUR),
      });
      const org = await ofOrg(orgA, A.owner, { translations: es('De A') });
      const ids = async (status?: string): Promise<string[]> => {
        const res = await admin.agent
          .get(ADMIN_PATH)
          .query({ limit: 200, ...(status ? { status } : {}) })
          .expect(200);
        return res.body.items.map((i: { id: string }) => i.id);
      };
      const all = await ids();
      expect(all).toEqual(expect.arrayContaining([scheduled.id, active.id, ended.id]));
      expect(all).not.toContain(org.id);
      expect(all.indexOf(scheduled.id)).toBeLessThan(all.indexOf(active.id));
      expect(all.indexOf(active.id)).toBeLessThan(all.indexOf(ended.id));
      const byStatus = { scheduled: await ids('scheduled'), active: await ids('active'), ended: await ids('ended') };
      expect([byStatus.scheduled.includes(scheduled.id), byStatus.scheduled.includes(active.id)]).toEqual([
        true,
        false,
      ]);
      expect([byStatus.active.includes(active.id), byStatus.active.includes(ended.id)]).toEqual([true, false]);
      expect([byStatus.ended.includes(ended.id), byStatus.ended.includes(active.id)]).toEqual([true, false]);
      const page = await admin.agent.get(ADMIN_PATH).query({ limit: 1, offset: 1 }).expect(200);
      expect(page.body).toMatchObject({ limit: 1, offset: 1, items: [expect.any(Object)] });
      expect(page.body.total).toBe(all.length);
      for (const query of [{ status: 'live' }, { limit: 0 }, { limit: 201 }, { offset: -1 }]) {
        expect((await admin.agent.get(ADMIN_PATH).query(query)).status).toBe(422);
      }
    });

    it('updates only the fields given (audited with their names)', async () => {
      const record = await platform({ translations: es('Antes', 'Texto'), ends_at: inFuture(HOUR) });
      const res = await admin.agent
        .patch(`${ADMIN_PATH}/${record.id}`)
        .send({
          translations: { en: { title: 'After', body_md: 'Text' } },
          ends_at: null,
          audience: { roles: ['student'] },
        })
        .expect(200);
      expect(res.body).toMatchObject({
        translations: { es: { title: 'Antes', body_md: 'Texto' }, en: { title: 'After', body_md: 'Text' } },
        ends_at: null,
        audience: { roles: ['student'], organization_ids: [], cohort_ids: [] },
        severity: 'info',
        dismissible: true,
        starts_at: record.starts_at,
      });
      expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(record.updated_at));
      expect((await auditOf('announcement.updated', record.id))[0]).toMatchObject({
        organization_id: null,
        metadata: { fields: ['translations', 'audience', 'ends_at'] },
      });
      const removed = await admin.agent
        .patch(`${ADMIN_PATH}/${record.id}`)
        .send({ translations: { es: null } })
        .expect(200);
      expect(removed.body.translations).toEqual({ en: { title: 'After', body_md: 'Text' } });
      const last = await admin.agent.patch(`${ADMIN_PATH}/${record.id}`).send({ translations: { en: null } });
      expect([last.status, last.body.error.details[0].field]).toEqual([422, 'translations']);
      const critical = await admin.agent.patch(`${ADMIN_PATH}/${record.id}`).send({ severity: 'critical' }).expect(200);
      expect(critical.body).toMatchObject({ severity: 'critical', dismissible: false });
      const contradiction = await admin.agent.patch(`${ADMIN_PATH}/${record.id}`).send({ dismissible: true });
      expect(contradiction.status).toBe(422);
      const window = await admin.agent
        .patch(`${ADMIN_PATH}/${record.id}`)
        .send({ ends_at: new Date(Date.parse(record.starts_at) - 1000).toISOString() });
      expect([window.status, window.body.error.details[0].field]).toEqual([422, 'ends_at']);
      const got = await admin.agent.get(`${ADMIN_PATH}/${record.id}`).expect(200);
      expect(got.body).toEqual(critical.body);
    });

    it('deletes (audited); a second delete, another scope and malformed ids are 404', async () => {
      const record = await platform({ translations: es('Borrar'), severity: 'warning' });
      await admin.agent.delete(`${ADMIN_PATH}/${record.id}`).expect(204);
      expect(await auditOf('announcement.deleted', record.id)).toEqual([
        {
          actor_id: admin.user.id,
          organization_id: null,
          target_type: 'announcement',
          metadata: { scope: 'platform', severity: 'warning', emailed: false },
        },
      ]);
      const org = await ofOrg(orgA, A.owner, { translations: es('De A') });
      for (const res of [
        await admin.agent.delete(`${ADMIN_PATH}/${record.id}`),
        await admin.agent.get(`${ADMIN_PATH}/${record.id}`),
        await admin.agent.get(`${ADMIN_PATH}/${org.id}`),
        await admin.agent.patch(`${ADMIN_PATH}/${org.id}`).send({ severity: 'info' }),
        await admin.agent.delete(`${ADMIN_PATH}/${org.id}`),
        await admin.agent.get(`${ADMIN_PATH}/not-a-uuid`),
      ]) {
        expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
      }
    });

    it('is for platform admins only', async () => {
      const record = await platform({ translations: es('Solo admins') });
      for (const res of [
        await A.owner.agent.get(ADMIN_PATH),
        await A.owner.agent.post(ADMIN_PATH).send({ translations: es('x') }),
        await A.owner.agent.get(`${ADMIN_PATH}/${record.id}`),
        await A.owner.agent.patch(`${ADMIN_PATH}/${record.id}`).send({ severity: 'critical' }),
        await A.owner.agent.delete(`${ADMIN_PATH}/${record.id}`),
      ]) {
        expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
      }
    });
  });

  describe('organization administration', () => {
    it('owner and admin create, list, update and delete their organization’s announcements (audited)', async () => {
      const record = await ofOrg(orgA, A.admin, {
        translations: es('Reunión'),
        audience: { roles: ['student'], cohort_ids: [cohortX] },
      });
      expect(record).toMatchObject({
        scope: 'organization',
        organization_id: orgA,
        audience: { roles: ['student'], organization_ids: [], cohort_ids: [cohortX] },
        created_by: { user_id: A.admin.user.id },
      });
      expect((await auditOf('announcement.created', record.id))[0]).toMatchObject({
        actor_id: A.admin.user.id,
        organization_id: orgA,
        metadata: { scope: 'organization', severity: 'info', by_email: false },
      });
      const list = await A.owner.agent.get(orgPath(orgA)).query({ limit: 200 }).expect(200);
      const ids = list.body.items.map((i: { id: string }) => i.id);
      expect(ids).toContain(record.id);
      expect(list.body.items.every((i: Body) => i.organization_id === orgA)).toBe(true);
      const other = await ofOrg(orgB, ownerB, { translations: es('De B') });
      expect(ids).not.toContain(other.id);

      const patched = await A.owner.agent
        .patch(`${orgPath(orgA)}/${record.id}`)
        .send({ audience: { cohort_ids: [] } })
        .expect(200);
      expect(patched.body.audience).toEqual({ roles: ['student'], organization_ids: [], cohort_ids: [] });
      expect((await auditOf('announcement.updated', record.id))[0]).toMatchObject({
        organization_id: orgA,
        metadata: { fields: ['audience'] },
      });
      await A.owner.agent.delete(`${orgPath(orgA)}/${record.id}`).expect(204);
      expect((await auditOf('announcement.deleted', record.id))[0]).toMatchObject({ organization_id: orgA });
    });

    it('another organization’s announcement, or the platform’s, is 404 through this organization', async () => {
      const other = await ofOrg(orgB, ownerB, { translations: es('De B') });
      const plat = await platform({ translations: es('Plataforma') });
      for (const id of [other.id, plat.id]) {
        for (const res of [
          await A.owner.agent.patch(`${orgPath(orgA)}/${id}`).send({ severity: 'critical' }),
          await A.owner.agent.delete(`${orgPath(orgA)}/${id}`),
        ]) {
          expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
        }
      }
      expect((await ownerB.agent.get(orgPath(orgB)).query({ limit: 200 }).expect(200)).body.items).toContainEqual(
        expect.objectContaining({ id: other.id, severity: 'info' }),
      );
    });

    it('a cohort of another organization is 404; organization lists are 422; nothing is created', async () => {
      const before = await count();
      const foreign = await A.owner.agent
        .post(orgPath(orgA))
        .send({ translations: es('x'), audience: { cohort_ids: [cohortB] } });
      expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
      const orgs = await A.owner.agent
        .post(orgPath(orgA))
        .send({ translations: es('x'), audience: { organization_ids: [orgA] } });
      expect([orgs.status, orgs.body.error.details[0].field]).toEqual([422, 'audience.organization_ids']);
      expect(await count()).toBe(before);
    });
  });

  describe('current announcements', () => {
    it('platform audiences: everyone, by role, by organization, in the organization read', async () => {
      const everyone = await platform({ translations: es('Todos') });
      const teachers = await platform({ translations: es('Docentes'), audience: { roles: ['teacher'] } });
      const onlyB = await platform({ translations: es('Solo B'), audience: { organization_ids: [orgB] } });
      const ownersOfA = await platform({
        translations: es('Propietarios de A'),
        audience: { roles: ['owner'], organization_ids: [orgA] },
      });
      const mine = [everyone.id, teachers.id, onlyB.id, ownersOfA.id];
      const seen = async (s: SignedIn, org?: string) => (await currentIds(s, org)).filter((id) => mine.includes(id));

      expect(await seen(loner)).toEqual([everyone.id]);
      expect(await seen(A.owner, orgA)).toEqual(expect.arrayContaining([everyone.id, ownersOfA.id]));
      expect(await seen(A.owner, orgA)).toHaveLength(2);
      expect((await seen(A.teacher, orgA)).sort()).toEqual([everyone.id, teachers.id].sort());
      expect(await seen(A.inCohort, orgA)).toEqual([everyone.id]);
      // One person, two organizations: what reaches them depends on the organization read.
      expect(await seen(both, orgA)).toEqual([everyone.id]);
      expect((await seen(both, orgB)).sort()).toEqual([everyone.id, teachers.id, onlyB.id].sort());
      expect((await seen(ownerB, orgB)).sort()).toEqual([everyone.id, onlyB.id].sort());
    });

    it('organization audiences: members only, by role and cohort; never another organization', async () => {
      const all = await ofOrg(orgA, A.owner, { translations: es('Todos en A') });
      const cohort = await ofOrg(orgA, A.owner, { translations: es('Cohorte X'), audience: { cohort_ids: [cohortX] } });
      const cohortStudents = await ofOrg(orgA, A.owner, {
        translations: es('Alumnos de X'),
        audience: { roles: ['student'], cohort_ids: [cohortX] },
      });
      const admins = await ofOrg(orgA, A.owner, {
        translations: es('Admins'),
        audience: { roles: ['owner', 'admin'] },
      });
      const mine = [all.id, cohort.id, cohortStudents.id, admins.id];
      const seen = async (s: SignedIn, org?: string) =>
        (await currentIds(s, org)).filter((id) => mine.includes(id)).sort();

      expect(await seen(A.inCohort, orgA)).toEqual([all.id, cohort.id, cohortStudents.id].sort());
      expect(await seen(A.outOfCohort, orgA)).toEqual([all.id]);
      expect(await seen(A.teacher, orgA)).toEqual([all.id, cohort.id].sort());
      expect(await seen(A.admin, orgA)).toEqual([all.id, admins.id].sort());
      expect(await seen(both, orgB)).toEqual([]);
      expect(await seen(ownerB, orgB)).toEqual([]);
      expect(await seen(loner)).toEqual([]);
    });

    it('answers the reader record in the reader’s language, else the other one, with sanitized HTML', async () => {
      const record = await ofOrg(orgA, A.owner, {
        translations: {
          es: { title: 'Hola', body_md: 'Texto **fuerte** <script>alert(1)</script>' },
          en: { title: 'Hello', body_md: 'Text [link](javascript:alert(1)) and [site](https://example.org)' },
        },
        severity: 'warning',
        ends_at: inFuture(HOUR),
      });
      const onlyEs = await ofOrg(orgA, A.owner, { translations: es('Solo español', '*sí*') });
      const find = async (s: SignedIn, id: unknown) =>
        (await s.agent.get(CURRENT).query({ organization_id: orgA }).expect(200)).body.items.find(
          (i: Body) => i.id === id,
        );

      expect(await find(A.outOfCohort, record.id)).toEqual({
        id: record.id,
        scope: 'organization',
        organization_id: orgA,
        title: 'Hola',
        body_md: 'Texto **fuerte** <script>alert(1)</script>',
        body_html: '<p>Texto <strong>fuerte</strong> &lt;script&gt;alert(1)&lt;/script&gt;</p>',
        locale: 'es',
        severity: 'warning',
        starts_at: record.starts_at,
        ends_at: record.ends_at,
        dismissible: true,
      });
      await A.outOfCohort.agent.patch('/api/v1/me/profile').send({ locale: 'en' }).expect(200);
      const english = await find(A.outOfCohort, record.id);
      expect(english).toMatchObject({ title: 'Hello', locale: 'en' });
      expect(english.body_html).toBe(
        '<p>Text [link](javascript:alert(1)) and <a href="https://example.org" rel="noopener noreferrer nofollow" target="_blank">site</a></p>',
      );
      expect(await find(A.outOfCohort, onlyEs.id)).toMatchObject({
        title: 'Solo español',
        locale: 'es',
        body_html: '<p><em>sí</em></p>',
      });
    });

    it('shows only what is inside its window, by the Clock', async () => {
      const later = await ofOrg(orgA, A.owner, { translations: es('Luego'), starts_at: inFuture(SOON) });
      const ending = await ofOrg(orgA, A.owner, { translations: es('Acaba'), ends_at: inFuture(SOON) });
      const mine = [later.id, ending.id];
      const seen = async () => (await currentIds(A.admin, orgA)).filter((id) => mine.includes(id));
      expect(await seen()).toEqual([ending.id]);
      t.clock.advance(SOON);
      try {
        expect(await seen()).toEqual([later.id]);
      } finally {
        t.clock.reset();
      }
    });

    it('orders critical, warning, info, each by starts_at descending', async () => {
      const make = (title: string, severity: string, startsInMs: number) =>
        ofOrg(orgA, A.owner, { translations: es(title), severity, starts_at: inFuture(startsInMs) });
      const infoOld = await make('info old', 'info', -3 * HOUR);
      const criticalOld = await make('critical old', 'critical', -2 * HOUR);
      const warningNew = await make('warning new', 'warning', -HOUR / 2);
      const infoNew = await make('info new', 'info', -HOUR / 4);
      const criticalNew = await make('critical new', 'critical', -HOUR / 3);
      const warningOld = await make('warning old', 'warning', -4 * HOUR);
      const mine = [infoOld, criticalOld, warningNew, infoNew, criticalNew, warningOld].map((r) => r.id);
      const order = (await currentIds(A.teacher, orgA)).filter((id) => mine.includes(id));
      expect(order).toEqual([criticalNew.id, criticalOld.id, warningNew.id, warningOld.id, infoNew.id, infoOld.id]);
    });

    it('reads in the token’s organization, else the active one, else none', async () => {
      const inA = await ofOrg(orgA, A.owner, { translations: es('Para A') });
      const inB = await ofOrg(orgB, ownerB, { translations: es('Para B') });
      const mine = [inA.id, inB.id];
      const seenBy = async (agent: SignedIn['agent'], query: Body = {}) =>
        ((await agent.get(CURRENT).query(query).expect(200)).body.items as { id: string }[])
          .map((i) => i.id)
          .filter((id) => mine.includes(id));

      // `both` never chose an active organization: without organization_id only announcements for everyone.
      expect(await seenBy(both.agent)).toEqual([]);
      await both.agent.put('/api/v1/me/active-organization').send({ organization_id: orgB }).expect(200);
      expect(await seenBy(both.agent)).toEqual([inB.id]);
      expect(await seenBy(both.agent, { organization_id: orgA })).toEqual([inA.id]);
      const tokenA = bearer(t, await personalToken(t, both, orgA, 'read'));
      expect(await seenBy(tokenA)).toEqual([inA.id]);
      const other = await tokenA.get(CURRENT).query({ organization_id: orgB });
      expect([other.status, other.body.error.code]).toEqual([404, 'not_found']);
    });

    it('404 for an organization the caller is not in; 403 when it is suspended; 422 for a malformed id', async () => {
      for (const org of [orgB, '00000000-0000-4000-8000-000000000099']) {
        const res = await A.inCohort.agent.get(CURRENT).query({ organization_id: org });
        expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
      }
      const bad = await A.inCohort.agent.get(CURRENT).query({ organization_id: 'nope' });
      expect([bad.status, bad.body.error.code]).toEqual([422, 'validation_error']);
      const owner = await adult(t);
      const suspended = await createOrganization(t, owner, 'Suspended');
      const everyone = await platform({ translations: es('Para todos') });
      await t.app.get(OrganizationsService).setSuspended(suspended, true, 'testing', owner.user.id, undefined);
      const res = await owner.agent.get(CURRENT).query({ organization_id: suspended });
      expect([res.status, res.body.error.code]).toEqual([403, 'organization_suspended']);
      // Its active organization suspended, the owner still reads what is for everyone.
      expect(await currentIds(owner)).toContain(everyone.id);
      const anonymous = await t.client().get(CURRENT);
      expect(anonymous.status).toBe(401);
    });
  });

  describe('dismissals', () => {
    it('dismisses (204, idempotent) and the announcement leaves the caller’s list only', async () => {
      const record = await ofOrg(orgA, A.owner, { translations: es('Descartable') });
      const path = `/api/v1/announcements/${record.id}/dismiss`;
      await A.inCohort.agent.post(path).expect(204);
      await A.inCohort.agent.post(path).expect(204);
      expect(await currentIds(A.inCohort, orgA)).not.toContain(record.id);
      expect(await currentIds(A.outOfCohort, orgA)).toContain(record.id);
      expect(
        await t.db.query(`SELECT organization_id FROM announcement_dismissals WHERE announcement_id = $1`, [record.id]),
      ).toEqual([{ organization_id: orgA }]);
    });

    it('dismisses platform announcements shown in any of the caller’s organizations, or to everyone', async () => {
      const everyone = await platform({ translations: es('Todos') });
      const onlyB = await platform({ translations: es('Solo B'), audience: { organization_ids: [orgB] } });
      await loner.agent.post(`/api/v1/announcements/${everyone.id}/dismiss`).expect(204);
      expect(await currentIds(loner)).not.toContain(everyone.id);
      await both.agent.post(`/api/v1/announcements/${onlyB.id}/dismiss`).expect(204);
      expect(await currentIds(both, orgB)).not.toContain(onlyB.id);
      const notShown = await A.owner.agent.post(`/api/v1/announcements/${onlyB.id}/dismiss`);
      expect([notShown.status, notShown.body.error.code]).toEqual([404, 'not_found']);
    });

    it('409 for critical and for non-dismissible announcements', async () => {
      for (const body of [
        { translations: es('Crítico'), severity: 'critical' },
        { translations: es('Fijo'), dismissible: false },
      ]) {
        const record = await ofOrg(orgA, A.owner, body);
        const res = await A.inCohort.agent.post(`/api/v1/announcements/${record.id}/dismiss`);
        expect([res.status, res.body.error.code]).toEqual([409, 'announcement_not_dismissible']);
        expect(await currentIds(A.inCohort, orgA)).toContain(record.id);
      }
    });

    it('404 for what is not shown to the caller', async () => {
      const ofB = await ofOrg(orgB, ownerB, { translations: es('B') });
      const teachersOnly = await ofOrg(orgA, A.owner, {
        translations: es('Docentes'),
        audience: { roles: ['teacher'] },
      });
      const scheduled = await ofOrg(orgA, A.owner, { translations: es('Luego'), starts_at: inFuture(HOUR) });
      const ended = await ofOrg(orgA, A.owner, {
        translations: es('Pasado'),
        starts_at: inFuture(-2 * HOUR),
        ends_at: inFuture(-HOUR),
      });
      for (const id of [ofB.id, teachersOnly.id, scheduled.id, ended.id, '00000000-0000-4000-8000-000000000042', 'x']) {
        const res = await A.inCohort.agent.post(`/api/v1/announcements/${id}/dismiss`);
        expect([id, res.status, res.body.error.code]).toEqual([id, 404, 'not_found']);
      }
      // A token reaches only its own organization's announcements.
      const ofA = await ofOrg(orgA, A.owner, { translations: es('A') });
      const tokenB = bearer(t, await personalToken(t, both, orgB, 'write'));
      const res = await tokenB.post(`/api/v1/announcements/${ofA.id}/dismiss`);
      expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
      expect(await t.db.query(`SELECT 1 FROM announcement_dismissals WHERE announcement_id = $1`, [ofA.id])).toEqual(
        [],
      );
    });

    it('a minor’s read-only session may dismiss (minors: always)', async () => {
      const minor = await adult(t);
      await addMember(t, orgA, minor.user.id, 'student');
      await t.app.get(UsersRepository).update(minor.user.id, { ageBracket: 'under_18' }, t.clock.now());
      const record = await ofOrg(orgA, A.owner, { translations: es('Para menores también') });
      await minor.agent.post(`/api/v1/announcements/${record.id}/dismiss`).expect(204);
      expect(await currentIds(minor, orgA)).not.toContain(record.id);
    });

    it('a dismissal of an organization’s announcement goes when the person leaves it', async () => {
      const person = await adult(t);
      await addMember(t, orgA, person.user.id, 'student');
      const record = await ofOrg(orgA, A.owner, { translations: es('Miembros') });
      await person.agent.post(`/api/v1/announcements/${record.id}/dismiss`).expect(204);
      await A.owner.agent.delete(`/api/v1/organizations/${orgA}/members/${person.user.id}`).expect(204);
      await addMember(t, orgA, person.user.id, 'student');
      expect(await currentIds(person, orgA)).toContain(record.id);
    });
  });

  describe('personal data', () => {
    it('dismissals are exported and erased; authored announcements are exported and kept without their author', async () => {
      const registry = t.app.get(PersonalDataRegistry);
      const handler = (area: string, key: string) =>
        registry.handlers().find((h) => h.area === area && h.key === key)!.handler;
      expect(registry.coveredTables().get('announcement_dismissals')).toEqual([
        'notifications.announcement_dismissals',
      ]);
      expect(registry.coveredTables().get('announcements')).toEqual(['organizations.announcements_authored']);
      expect(registry.exemptions()).toHaveProperty('email_suppressions');

      const author = await adult(t);
      await addMember(t, orgA, author.user.id, 'admin');
      const reader = await adult(t);
      await addMember(t, orgA, reader.user.id, 'student');
      const record = await ofOrg(orgA, author, { translations: es('De quien se va') });
      await reader.agent.post(`/api/v1/announcements/${record.id}/dismiss`).expect(204);

      const dismissals = handler('notifications', 'announcement_dismissals');
      const authored = handler('organizations', 'announcements_authored');
      expect(await collectRows(dismissals.export(reader.user.id, t.db.manager))).toEqual([
        { announcement_id: record.id, organization_id: orgA, dismissed_at: expect.any(Date) },
      ]);
      expect(await collectRows(authored.export(author.user.id, t.db.manager))).toEqual([
        expect.objectContaining({ id: record.id, organization_id: orgA, translations: record.translations }),
      ]);

      const transactions = t.app.get(TransactionRunner);
      for (const [h, userId] of [
        [dismissals, reader.user.id],
        [authored, author.user.id],
      ] as const) {
        await transactions.run((tx) => h.erase({ userId, tx, now: t.clock.now(), keepCertificateNames: false }));
      }
      expect(await collectRows(dismissals.export(reader.user.id, t.db.manager))).toEqual([]);
      expect(await collectRows(authored.export(author.user.id, t.db.manager))).toEqual([]);
      const list = await A.owner.agent.get(orgPath(orgA)).query({ limit: 200 }).expect(200);
      expect(list.body.items.find((i: Rec) => i.id === record.id).created_by).toEqual({ user_id: null });
      expect(await currentIds(reader, orgA)).toContain(record.id);
    });
  });

  describe('emailed announcements per organization per day (extensions-v3 6.9)', () => {
    it('3 per organization and day: the 4th is 409 announcement_email_limit_reached, by create or update', async () => {
      const owner = await adult(t);
      const org = await createOrganization(t, owner, 'Busy mailer');
      const day = (d: number, h: number): string => {
        const at = new Date(t.clock.nowMs() + d * 24 * HOUR);
        at.setUTCHours(h, 0, 0, 0);
        return at.toISOString();
      };
      for (const h of [1, 12, 23]) {
        await ofOrg(org, owner, { translations: es(`Mail ${h}`), starts_at: day(2, h), email: true });
      }
      const fourth = await owner.agent
        .post(orgPath(org))
        .send({ translations: es('One too many'), starts_at: day(2, 18), email: true });
      expect([fourth.status, fourth.body.error?.code]).toEqual([409, 'announcement_email_limit_reached']);
      // Without email it is created; turning email on is refused the same way; another day has room.
      const quiet = await ofOrg(org, owner, { translations: es('Quiet'), starts_at: day(2, 18) });
      const on = await owner.agent.patch(`${orgPath(org)}/${quiet.id}`).send({ email: true });
      expect([on.status, on.body.error?.code]).toEqual([409, 'announcement_email_limit_reached']);
      await owner.agent
        .patch(`${orgPath(org)}/${quiet.id}`)
        .send({ email: true, starts_at: day(3, 1) })
        .expect(200);
      // Another organization has its own 3.
      const other = await adult(t);
      const otherOrg = await createOrganization(t, other, 'Other mailer');
      await ofOrg(otherOrg, other, { translations: es('Mine'), starts_at: day(2, 12), email: true });
      // Platform announcements are not an organization's.
      await platform({ translations: es('Platform mail'), starts_at: day(2, 12), email: true });
    });
  });

  describe('email at starts_at', () => {
    /** People of their own organization, each with a consent history; every email of this block goes to them. */
    let org: string;
    let owner: SignedIn;
    const people = {} as Record<'granted' | 'withdrawn' | 'never' | 'regranted' | 'english' | 'complained', SignedIn>;

    async function consent(s: SignedIn, granted: boolean, at: number): Promise<void> {
      await t.db.query(
        `INSERT INTO consents (user_id, kind, terms_version, granted_at, granted) VALUES ($1, 'product_updates_email', '1', $2, $3)`,
        [s.user.id, new Date(at), granted],
      );
    }

    beforeAll(async () => {
      owner = await adult(t);
      org = await createOrganization(t, owner, 'Mail org');
      for (const key of ['granted', 'withdrawn', 'never', 'regranted', 'english', 'complained'] as const) {
        people[key] = await adult(t);
        await addMember(t, org, people[key].user.id, 'student');
      }
      const now = Date.now();
      await consent(people.granted, true, now - 3000);
      await consent(people.withdrawn, true, now - 3000);
      await consent(people.withdrawn, false, now - 2000);
      await consent(people.regranted, false, now - 3000);
      await consent(people.regranted, true, now - 2000);
      await consent(people.english, true, now - 3000);
      await consent(people.complained, true, now - 3000);
      await people.english.agent.patch('/api/v1/me/profile').send({ locale: 'en' }).expect(200);
      // A complaint stops announcements (extensions-v2 22.3).
      await t.db.query(
        `INSERT INTO email_suppressions (address_hash, email_masked, reason, created_at, updated_at)
         VALUES ($1, 'x***@example.test', 'complaint', now(), now())`,
        [t.app.get(CryptoService).keyedHash('email-suppression', people.complained.email.toLowerCase())],
      );
    });

    async function sendJob(announcementId: string): Promise<{ id: string; run_after: Date; status: string }> {
      const rows = await t.db.query(
        `SELECT id, run_after, status FROM jobs WHERE name = 'announcements.send_email'
         AND payload->>'announcement_id' = $1 ORDER BY created_at DESC`,
        [announcementId],
      );
      return rows[0];
    }

    /**
     * Waits until the fan-out of the announcement ran and every message it queued was handled (sent or stopped),
     * and answers whom messages were queued for.
     */
    async function mailedTo(announcementId: string): Promise<string[]> {
      const mails: { user_id: string }[] = await waitUntil(async () => {
        const batches = await t.db.query(
          `SELECT status FROM jobs WHERE name = 'announcements.email_batch' AND payload->>'announcement_id' = $1`,
          [announcementId],
        );
        const queued = await t.db.query(
          `SELECT split_part(dedupe_key, ':', 3) AS user_id, status FROM jobs WHERE dedupe_key LIKE $1`,
          [`announcement:${announcementId}:%`],
        );
        const all = [...batches, ...queued];
        return batches.length > 0 && all.every((j: { status: string }) => j.status === 'completed') ? queued : null;
      });
      return mails.map((r) => r.user_id).sort();
    }

    /** Every mail job queued since `since` is handled; their number. */
    async function mailJobsSince(since: Date): Promise<number> {
      const rows: { status: string }[] = await waitUntil(async () => {
        const jobs = await t.db.query(`SELECT status FROM jobs WHERE name = 'mail.send' AND created_at >= $1`, [since]);
        return jobs.every((j: { status: string }) => j.status === 'completed') ? jobs : null;
      });
      return rows.length;
    }

    const idsOf = (...keys: (keyof typeof people)[]) => keys.map((k) => people[k].user.id).sort();

    it('sends once at starts_at, only to people whose latest consent is granted, with both RFC 8058 headers', async () => {
      const record = await ofOrg(org, owner, {
        translations: {
          es: { title: 'Novedades', body_md: 'Hay **cursos nuevos**.\n\nMira [el catálogo](https://example.org/c).' },
          en: { title: 'News', body_md: 'There are **new courses**.' },
        },
        starts_at: inFuture(SOON),
        email: true,
      });
      const job = await sendJob(record.id);
      expect(job.status).toBe('pending');
      // Delayed to starts_at by the outbox (within a few seconds of the request).
      expect(Math.abs(new Date(job.run_after).getTime() - (t.clock.nowMs() + SOON))).toBeLessThan(30_000);

      // Run early (the Clock has not reached starts_at): nothing is sent, a successor waits.
      await t.app.get(JobRunner).execute(job.id);
      const successor = await sendJob(record.id);
      expect(successor.id).not.toBe(job.id);
      const before = (await owner.agent.get(orgPath(org)).expect(200)).body.items[0];
      expect(before).toMatchObject({ id: record.id, email: true, emailed_at: null });

      const sinkBefore = t.mail.count();
      t.clock.advance(SOON);
      try {
        await t.app.get(JobRunner).execute(successor.id);
        expect(await mailedTo(record.id)).toEqual(idsOf('granted', 'regranted', 'english', 'complained'));
        const spanish = await t.mail.waitForTo(people.granted.email, { after: sinkBefore });
        const english = await t.mail.waitForTo(people.english.email, { after: sinkBefore });
        expect(spanish.subject).toBe('Novedades');
        expect(spanish.text).toContain('Hay cursos nuevos.');
        expect(spanish.text).toContain('Mira el catálogo (https://example.org/c)');
        expect(english.subject).toBe('News');
        expect(english.text).toContain('There are new courses.');
        for (const [mail, person] of [
          [spanish, people.granted],
          [english, people.english],
        ] as const) {
          const header = mail.headers['list-unsubscribe'];
          const url = new URL(/^<(.+)>$/.exec(header)![1]);
          expect(`${url.origin}${url.pathname}`).toBe(`${t.baseUrl}${UNSUBSCRIBE_PATH}`);
          expect(url.searchParams.get('type')).toBe('all');
          const token = url.searchParams.get('token')!;
          expect(verifyUnsubscribeToken(t.app.get(CryptoService), token, 'all')).toBe(person.user.id);
          expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
          expect(mail.text).toContain(url.toString());
        }
        // The suppressed (complaint) address got nothing; nor did those without consent.
        const reached = t.mail.messages.slice(sinkBefore).flatMap((m) => m.envelopeTo);
        expect(reached.sort()).toEqual([people.granted.email, people.regranted.email, people.english.email].sort());

        const after = (await owner.agent.get(orgPath(org)).expect(200)).body.items[0];
        expect(after.emailed_at).toMatch(ISO);
        const change = await owner.agent.patch(`${orgPath(org)}/${record.id}`).send({ email: false });
        expect([change.status, change.body.error.code]).toEqual([409, 'announcement_already_emailed']);
        await owner.agent
          .patch(`${orgPath(org)}/${record.id}`)
          .send({ email: true })
          .expect(200);
        await owner.agent
          .patch(`${orgPath(org)}/${record.id}`)
          .send({ severity: 'warning' })
          .expect(200);
      } finally {
        t.clock.reset();
      }
    });

    it('a critical announcement goes to the whole audience, consent or not; a redelivered batch sends nothing twice', async () => {
      const since = (await t.db.query(`SELECT now() AS now`))[0].now as Date;
      const sinkBefore = t.mail.count();
      const record = await ofOrg(org, owner, {
        translations: es('Corte de servicio', 'El **lunes** no habrá servicio.'),
        severity: 'critical',
        audience: { roles: ['student'] },
        email: true,
      });
      // Starting now, the send job is due at once: the real queue runs it.
      expect(await mailedTo(record.id)).toEqual(
        idsOf('granted', 'withdrawn', 'never', 'regranted', 'english', 'complained'),
      );
      await waitUntil(() => t.mail.to(people.never.email).some((m) => m.subject.includes('Corte de servicio')));
      const notice = t.mail.to(people.never.email).find((m) => m.subject.includes('Corte'))!;
      expect(notice.subject).toBe('Aviso importante: Corte de servicio');
      // A service notice (extensions-v3 6.9): no unsubscribe it would not honour, in the footer or the headers.
      expect(notice.text).not.toContain(UNSUBSCRIBE_PATH);
      expect(notice.text).not.toMatch(/baja|no recibir/i);
      expect(notice.headers['list-unsubscribe']).toBeUndefined();
      expect(notice.headers['list-unsubscribe-post']).toBeUndefined();
      await t.app
        .get(AnnouncementEmails)
        .batch({ announcement_id: record.id, after: null }, { jobId: 'redelivery', attempt: 2, organizationId: org });
      expect(await mailJobsSince(since)).toBe(6);
      const reached = t.mail.messages.slice(sinkBefore).flatMap((m) => m.envelopeTo);
      expect(reached).toHaveLength(5); // the owner is not a student; the complained address is suppressed
      expect(new Set(reached).size).toBe(5);
    });

    it('an email turned on later, or a start moved, is scheduled for the (new) start; a deleted one is never sent', async () => {
      const record = await ofOrg(org, owner, { translations: es('Más tarde'), starts_at: inFuture(HOUR) });
      expect(await sendJob(record.id)).toBeUndefined();
      await owner.agent
        .patch(`${orgPath(org)}/${record.id}`)
        .send({ email: true })
        .expect(200);
      const first = await sendJob(record.id);
      await owner.agent
        .patch(`${orgPath(org)}/${record.id}`)
        .send({ starts_at: inFuture(3 * HOUR) })
        .expect(200);
      const moved = await sendJob(record.id);
      expect(moved.id).not.toBe(first.id);
      expect(Math.abs(new Date(moved.run_after).getTime() - (t.clock.nowMs() + 3 * HOUR))).toBeLessThan(60_000);
      await owner.agent.delete(`${orgPath(org)}/${record.id}`).expect(204);
      t.clock.advance(3 * HOUR);
      try {
        await t.app.get(JobRunner).execute(moved.id);
        expect(
          await t.db.query(
            `SELECT 1 FROM jobs WHERE name = 'announcements.email_batch' AND payload->>'announcement_id' = $1`,
            [record.id],
          ),
        ).toEqual([]);
      } finally {
        t.clock.reset();
      }
    });

    it('an organization announcement by cohort reaches only its cohort', async () => {
      const cohort = (
        await owner.agent.post(`/api/v1/organizations/${org}/cohorts`).send({ name: 'Mail X' }).expect(201)
      ).body.id;
      await owner.agent
        .post(`/api/v1/organizations/${org}/cohorts/${cohort}/members`)
        .send({ user_id: people.granted.user.id, role: 'student' })
        .expect(201);
      const record = await ofOrg(org, owner, {
        translations: es('Solo la cohorte'),
        audience: { cohort_ids: [cohort] },
        email: true,
      });
      expect(await mailedTo(record.id)).toEqual(idsOf('granted'));
    });

    it('a platform announcement by organization and role reaches those members with consent', async () => {
      await consent(owner, true, Date.now());
      const record = await platform({
        translations: es('Propietarios'),
        audience: { roles: ['owner', 'student'], organization_ids: [org] },
        email: true,
      });
      expect(await mailedTo(record.id)).toEqual(
        [...idsOf('granted', 'regranted', 'english', 'complained'), owner.user.id].sort(),
      );
    });
  });
});
