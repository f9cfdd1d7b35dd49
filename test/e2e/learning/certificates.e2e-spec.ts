import { randomBytes } from 'node:crypto';
import { CertificatesRepository } from '@/modules/learning/certificates/testing';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const CERTIFICATE_KEYS = [
  'code',
  'cohort_id',
  'course_id',
  'holder',
  'id',
  'issued_at',
  'organization_id',
  'path_id',
  'replaced_by_code',
  'revoke_reason',
  'revoked_at',
  'status',
  'title',
  'type',
];
const VERIFICATION_KEYS = [
  'code',
  'credential',
  'holder_name',
  'issued_at',
  'issuer',
  'replaced_by_code',
  'revoked_at',
  'status',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CODE = /^(CRS|PRG)-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}-[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{4}$/;

describe('certificates', () => {
  let t: TestApp;
  let orgA: string;
  let orgB: string;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let student1: SignedIn;
  let student2: SignedIn;
  let ownerB: SignedIn;
  let cohortA1: string;
  let cohortB: string;
  let course1: string;
  let program: string;
  let seq = 0;

  const list = (org = orgA): string => `/api/v1/organizations/${org}/issued-certificates`;
  const verify = (code: string): string => `/api/v1/public/certificates/verify/${encodeURIComponent(code)}`;

  async function course(title: string): Promise<string> {
    const slug = `c-${randomBytes(5).toString('hex')}`;
    const [row] = await t.db.query(
      `INSERT INTO courses (slug, title, language, level, status, visibility, issues_certificate, published_at)
       VALUES ($1, $2, 'es', 'beginner', 'published', 'public', true, now()) RETURNING id`,
      [slug, title],
    );
    return row.id;
  }

  /** An issued certificate written directly (issuing belongs to course and program completion). */
  async function cert(
    v: {
      org?: string;
      user?: SignedIn;
      type?: 'course' | 'program';
      subject?: string;
      code?: string;
      holder?: string;
      title?: string;
      status?: 'active' | 'revoked' | 'replaced';
      minutesAgo?: number;
      cohortId?: string | null;
      grade?: number | null;
    } = {},
  ): Promise<{ id: string; code: string }> {
    const type = v.type ?? 'course';
    const code = v.code ?? `${type === 'course' ? 'CRS' : 'PRG'}-${codeBody()}`;
    // One active certificate per person and subject: a fresh course unless the test names one.
    const subject = v.subject ?? (type === 'course' ? await course('Fixture course') : program);
    const [row] = await t.db.query(
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, path_id, cohort_id,
         title, grade, status, issued_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now() - make_interval(mins => $12), $13) RETURNING id, code`,
      [
        code,
        type,
        v.org ?? orgA,
        (v.user ?? student1).user.id,
        v.holder ?? 'Ana Pérez',
        type === 'course' ? subject : null,
        type === 'program' ? subject : null,
        v.cohortId ?? null,
        v.title ?? 'Estadística I',
        v.grade ?? null,
        v.status ?? 'active',
        v.minutesAgo ?? 1000 - ++seq,
        v.status === 'revoked' ? new Date() : null,
      ],
    );
    return row;
  }

  function codeBody(): string {
    const alphabet = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
    const pick = (): string => Array.from(randomBytes(4), (b) => alphabet[b % alphabet.length]).join('');
    return `${pick()}-${pick()}`;
  }

  async function auditOf(
    action: string,
    org = orgA,
  ): Promise<{ target_id: string; metadata: Record<string, unknown> }[]> {
    const res = await owner.agent.get(`/api/v1/organizations/${org}/audit`).query({ action, limit: 200 }).expect(200);
    return res.body.items;
  }

  async function cohort(org: string, by: SignedIn, name: string, members: [SignedIn, 'student' | 'teacher'][]) {
    const id = (await by.agent.post(`/api/v1/organizations/${org}/cohorts`).send({ name }).expect(201)).body.id;
    for (const [person, role] of members) {
      await by.agent
        .post(`/api/v1/organizations/${org}/cohorts/${id}/members`)
        .send({ user_id: person.user.id, role })
        .expect(201);
    }
    return id as string;
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Universidad A');
    [admin, teacher, otherTeacher, student1, student2] = [
      await adult(t),
      await adult(t),
      await adult(t),
      await adult(t),
      await adult(t),
    ];
    await addMember(t, orgA, admin.user.id, 'admin');
    await addMember(t, orgA, teacher.user.id, 'teacher');
    await addMember(t, orgA, otherTeacher.user.id, 'teacher');
    await addMember(t, orgA, student1.user.id, 'student');
    await addMember(t, orgA, student2.user.id, 'student');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Escuela B');
    await addMember(t, orgB, student1.user.id, 'student');
    cohortA1 = await cohort(orgA, owner, 'A1', [
      [teacher, 'teacher'],
      [student1, 'student'],
    ]);
    await cohort(orgA, owner, 'A2', [
      [otherTeacher, 'teacher'],
      [student2, 'student'],
    ]);
    cohortB = await cohort(orgB, ownerB, 'B1', [[student1, 'student']]);
    course1 = await course('Estadística I');
    const [p] = await t.db.query(
      `INSERT INTO learning_paths (slug, title, kind, status) VALUES ('prog-cert-tests', 'Analista de datos', 'program', 'published')
       RETURNING id`,
    );
    program = p.id;
  });
  afterAll(() => t.close());

  describe('GET /certificate-template (public)', () => {
    it("answers the platform's default template, cacheable for 5 minutes", async () => {
      const res = await t.http().get('/api/v1/certificate-template').expect(200);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(res.body).toEqual({
        template: {
          issuer_name: null,
          signature_name: null,
          signature_title: null,
          logo_url: null,
          footer_text: null,
          accent_color: '#1F4E79',
        },
      });
    });
  });

  describe('public verification', () => {
    let valid: { id: string; code: string };
    beforeAll(async () => {
      valid = await cert({ holder: 'Lucía Gómez', title: 'Estadística I', grade: 93 });
    });

    it('answers a valid certificate with exactly the public fields (no email, ids or grade)', async () => {
      const res = await t.client().get(verify(valid.code)).expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(Object.keys(res.body).sort()).toEqual(VERIFICATION_KEYS);
      expect(res.body).toEqual({
        code: valid.code,
        status: 'valid',
        holder_name: 'Lucía Gómez',
        credential: { type: 'course', title: 'Estadística I' },
        issuer: { name: 'Universidad A', logo_url: null },
        issued_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        revoked_at: null,
        replaced_by_code: null,
      });
      const text = JSON.stringify(res.body);
      for (const secret of [student1.email, student1.user.id, orgA, valid.id, course1]) {
        expect(text).not.toContain(secret);
      }
      // The grade (93) appears nowhere as a value (a substring check would trip over the timestamp's digits).
      const values = (o: unknown): unknown[] => (o && typeof o === 'object' ? Object.values(o).flatMap(values) : [o]);
      expect(values(res.body)).not.toContain(93);
      expect(text).not.toContain('grade');
    });

    it('normalizes the code: lower case and spaces anywhere', async () => {
      const messy = ` ${valid.code.toLowerCase().slice(0, 6)} ${valid.code.toLowerCase().slice(6)} `;
      const res = await t.client().get(verify(messy)).expect(200);
      expect(res.body.code).toBe(valid.code);
    });

    it('finds a legacy code stored as it was issued, by its normalized form', async () => {
      await cert({ code: 'UNIA2019-00042', holder: 'Legacy Holder' });
      const res = await t.client().get(verify('unia2019 - 00042')).expect(200);
      expect(res.body).toMatchObject({ code: 'UNIA2019-00042', status: 'valid', holder_name: 'Legacy Holder' });
    });

    it('shows the template issuer and logo when the organization set them, else its name and logo', async () => {
      const c = await cert({ org: orgB, user: student1 });
      const before = await t.client().get(verify(c.code)).expect(200);
      expect(before.body.issuer).toEqual({ name: 'Escuela B', logo_url: null });
      await ownerB.agent
        .patch(`/api/v1/organizations/${orgB}`)
        .send({ logo_url: 'https://cdn.example.com/b.png' })
        .expect(200);
      const orgLogo = await t.client().get(verify(c.code)).expect(200);
      expect(orgLogo.body.issuer).toEqual({ name: 'Escuela B', logo_url: 'https://cdn.example.com/b.png' });
      await ownerB.agent
        .patch(`/api/v1/organizations/${orgB}`)
        .send({ issuer_name: 'Escuela B — Registro', cert_logo_url: 'https://cdn.example.com/cert.png' })
        .expect(200);
      const after = await t.client().get(verify(c.code)).expect(200);
      expect(after.body.issuer).toEqual({ name: 'Escuela B — Registro', logo_url: 'https://cdn.example.com/cert.png' });
    });

    it('answers revoked without the holder name, and replaced with the code of its replacement', async () => {
      const r = await cert({ holder: 'Revoked Holder' });
      await owner.agent.post(`${list()}/${r.id}/revoke`).send({ reason: 'Academic misconduct' }).expect(200);
      const revoked = await t.client().get(verify(r.code)).expect(200);
      expect(revoked.body).toMatchObject({ status: 'revoked', holder_name: null, replaced_by_code: null });
      expect(revoked.body.revoked_at).toEqual(expect.any(String));
      expect(JSON.stringify(revoked.body)).not.toContain('Revoked Holder');
      expect(JSON.stringify(revoked.body)).not.toContain('misconduct');

      const old = await cert({ holder: 'Misspeled Name' });
      const created = await owner.agent
        .post(`${list()}/${old.id}/reissue`)
        .send({ name: 'Misspelled Name', reason: 'Typo in the name' })
        .expect(201);
      const replaced = await t.client().get(verify(old.code)).expect(200);
      expect(replaced.body).toMatchObject({
        status: 'replaced',
        holder_name: 'Misspeled Name',
        replaced_by_code: created.body.code,
      });
      expect(replaced.body.revoked_at).toEqual(expect.any(String));
    });

    it('404 for an unknown code, 64 characters accepted, 65 refused with 422; no-store on every answer', async () => {
      const unknown = await t.client().get(verify('CRS-ZZZZ-ZZZZ')).expect(404);
      expect(unknown.body.error.code).toBe('not_found');
      expect(unknown.headers['cache-control']).toBe('no-store');
      const at = await t
        .client()
        .get(verify('A'.repeat(64)))
        .expect(404);
      expect(at.headers['cache-control']).toBe('no-store');
      const past = await t
        .client()
        .get(verify('A'.repeat(65)))
        .expect(422);
      expect(past.body.error.code).toBe('validation_error');
      expect(past.body.error.details.map((d: { field: string }) => d.field)).toEqual(['code']);
      expect(past.headers['cache-control']).toBe('no-store');
    });

    it('allows 30 requests per minute per client address, then 429 with Retry-After and no-store', async () => {
      const ip = t.nextIp();
      for (let i = 0; i < 30; i++) {
        const res = await t.client(ip).get(verify(i % 2 ? valid.code : 'CRS-ZZZZ-ZZZZ'));
        expect(res.status).toBe(i % 2 ? 200 : 404);
      }
      const limited = await t.client(ip).get(verify(valid.code)).expect(429);
      expect(limited.body.error.code).toBe('too_many_requests');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(limited.headers['cache-control']).toBe('no-store');
      // Counted per address: another client is unaffected.
      await t.client().get(verify(valid.code)).expect(200);
    });

    it('counts concurrent requests of one address exactly: 30 of 31 sent at once pass, one is refused', async () => {
      const ip = t.nextIp();
      const statuses = await Promise.all(
        Array.from({ length: 31 }, async () => (await t.client(ip).get(verify(valid.code))).status),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(30);
      expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    });

    it('answers concurrent verifications (looked up together) each with its own certificate', async () => {
      const revoked = await cert({ holder: 'Concurrent Revoked', status: 'revoked' });
      const others = await Promise.all([1, 2, 3].map((i) => cert({ holder: `Concurrent ${i}`, title: `Title ${i}` })));
      const codes = [valid.code, revoked.code, 'CRS-ZZZZ-ZZZZ', ...others.map((o) => o.code), valid.code.toLowerCase()];
      const one = async (code: string): Promise<[number, unknown]> => {
        const res = await t.client().get(verify(code));
        return [res.status, res.body.error ? res.body.error.code : res.body];
      };
      const sequential: [number, unknown][] = [];
      for (const code of codes) sequential.push(await one(code));
      expect(sequential.map(([status]) => status)).toEqual([200, 200, 404, 200, 200, 200, 200]);
      expect(await Promise.all(codes.map(one))).toEqual(sequential);
      // The same look-ups from one turn of the event loop: one statement for all of them, the same rows.
      const repo = t.app.get(CertificatesRepository);
      const batched = await Promise.all(codes.map((c) => repo.findByCode(c.toUpperCase())));
      const alone: unknown[] = [];
      for (const c of codes) alone.push(await repo.findByCode(c.toUpperCase()));
      expect(batched).toEqual(alone);
      expect(batched.map((r) => r?.holder_name ?? null)).toEqual([
        'Lucía Gómez',
        'Concurrent Revoked',
        null,
        'Concurrent 1',
        'Concurrent 2',
        'Concurrent 3',
        'Lucía Gómez',
      ]);
    });
  });

  describe('GET /organizations/{org_id}/issued-certificates', () => {
    let s1c1: { id: string; code: string };
    let s1p: { id: string; code: string };
    let s2c2: { id: string; code: string };
    let s2rev: { id: string; code: string };
    let bOnly: { id: string; code: string };
    let org: string;
    let orgOwner: SignedIn;
    let orgTeacher: SignedIn;
    let c1: string;
    let c2: string;
    let cohort1: string;
    let cohort2: string;

    beforeAll(async () => {
      // A clean organization so totals are exact.
      orgOwner = await adult(t);
      org = await createOrganization(t, orgOwner, 'Lists Org');
      orgTeacher = await adult(t);
      await addMember(t, org, orgTeacher.user.id, 'teacher');
      await addMember(t, org, student1.user.id, 'student');
      await addMember(t, org, student2.user.id, 'student');
      await addMember(t, org, otherTeacher.user.id, 'teacher');
      cohort1 = await cohort(org, orgOwner, 'L1', [
        [orgTeacher, 'teacher'],
        [student1, 'student'],
      ]);
      cohort2 = await cohort(org, orgOwner, 'L2', [
        [otherTeacher, 'teacher'],
        [student2, 'student'],
      ]);
      c1 = await course('List course 1');
      c2 = await course('List course 2');
      s1c1 = await cert({ org, user: student1, subject: c1, minutesAgo: 50 });
      s1p = await cert({ org, user: student1, type: 'program', subject: program, minutesAgo: 40 });
      s2c2 = await cert({ org, user: student2, subject: c2, minutesAgo: 30 });
      s2rev = await cert({ org, user: student2, subject: c1, status: 'revoked', minutesAgo: 20 });
      bOnly = await cert({ org: orgB, user: student1, subject: c1, minutesAgo: 10 });
    });

    const ids = (res: { body: { items: { id: string }[] } }): string[] => res.body.items.map((i) => i.id);

    it('owner/admin see every certificate of the organization, most recent first, in the documented shape', async () => {
      const res = await orgOwner.agent.get(list(org)).expect(200);
      expect(res.body).toMatchObject({ total: 4, limit: 50, offset: 0 });
      expect(ids(res)).toEqual([s2rev.id, s2c2.id, s1p.id, s1c1.id]);
      expect(ids(res)).not.toContain(bOnly.id);
      const item = res.body.items.find((i: { id: string }) => i.id === s1p.id);
      expect(Object.keys(item).sort()).toEqual(CERTIFICATE_KEYS);
      expect(item).toEqual({
        id: s1p.id,
        code: s1p.code,
        type: 'program',
        status: 'active',
        holder: { user_id: student1.user.id, name: 'Ana Pérez' },
        organization_id: org,
        course_id: null,
        path_id: program,
        cohort_id: null,
        title: 'Estadística I',
        issued_at: expect.any(String),
        revoked_at: null,
        revoke_reason: null,
        replaced_by_code: null,
      });
    });

    it('filters by course, program, status, type and cohort, alone and combined', async () => {
      const q = async (query: Record<string, string>): Promise<string[]> =>
        ids(await orgOwner.agent.get(list(org)).query(query).expect(200));
      expect(await q({ course_id: c1 })).toEqual([s2rev.id, s1c1.id]);
      expect(await q({ path_id: program })).toEqual([s1p.id]);
      expect(await q({ status: 'revoked' })).toEqual([s2rev.id]);
      expect(await q({ status: 'active' })).toEqual([s2c2.id, s1p.id, s1c1.id]);
      expect(await q({ status: 'replaced' })).toEqual([]);
      expect(await q({ type: 'program' })).toEqual([s1p.id]);
      expect(await q({ type: 'course' })).toEqual([s2rev.id, s2c2.id, s1c1.id]);
      expect(await q({ cohort_id: cohort1 })).toEqual([s1p.id, s1c1.id]);
      expect(await q({ cohort_id: cohort2 })).toEqual([s2rev.id, s2c2.id]);
      expect(await q({ course_id: c1, status: 'active' })).toEqual([s1c1.id]);
      expect(await q({ cohort_id: cohort2, course_id: c1, status: 'revoked', type: 'course' })).toEqual([s2rev.id]);
      expect(await q({ course_id: c1, type: 'program' })).toEqual([]);
      // An empty value is no filter.
      expect(await q({ cohort_id: '', course_id: '' })).toHaveLength(4);
    });

    it('the cohort filter follows current membership, not the cohort at issue time', async () => {
      await orgOwner.agent
        .post(`/api/v1/organizations/${org}/cohorts/${cohort1}/members`)
        .send({ user_id: student2.user.id, role: 'student' })
        .expect(201);
      const res = await orgOwner.agent.get(list(org)).query({ cohort_id: cohort1 }).expect(200);
      expect(ids(res)).toEqual([s2rev.id, s2c2.id, s1p.id, s1c1.id]);
      await orgOwner.agent
        .delete(`/api/v1/organizations/${org}/cohorts/${cohort1}/members/${student2.user.id}`)
        .expect(204);
      const after = await orgOwner.agent.get(list(org)).query({ cohort_id: cohort1 }).expect(200);
      expect(ids(after)).toEqual([s1p.id, s1c1.id]);
    });

    it('pages with limit 1..200 and offset >= 0; the total counts every match', async () => {
      const page = await orgOwner.agent.get(list(org)).query({ limit: 2, offset: 1 }).expect(200);
      expect(page.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
      expect(ids(page)).toEqual([s2c2.id, s1p.id]);
      const tail = await orgOwner.agent.get(list(org)).query({ limit: 200, offset: 3 }).expect(200);
      expect(ids(tail)).toEqual([s1c1.id]);
      const beyond = await orgOwner.agent.get(list(org)).query({ limit: 1, offset: 10 }).expect(200);
      expect(beyond.body).toMatchObject({ items: [], total: 4 });
      for (const query of [{ limit: 0 }, { limit: 201 }, { offset: -1 }, { limit: 'x' }]) {
        const res = await orgOwner.agent.get(list(org)).query(query).expect(422);
        expect(res.body.error.code).toBe('validation_error');
      }
    });

    it('the total is exact for every filter and follows issue, revoke, reissue and delete (issue 20: counters)', async () => {
      const countOwner = await adult(t);
      const countOrg = await createOrganization(t, countOwner, 'Counted Org');
      await addMember(t, countOrg, student1.user.id, 'student');
      await addMember(t, countOrg, student2.user.id, 'student');
      const queries: Record<string, string>[] = [
        {},
        { status: 'active' },
        { status: 'revoked' },
        { status: 'replaced' },
        { type: 'course' },
        { type: 'program' },
        { status: 'active', type: 'course' },
        { status: 'replaced', type: 'program' },
      ];
      const exact = async (query: Record<string, string>): Promise<number> => {
        const [row] = await t.db.query(
          `SELECT count(*)::int AS n FROM issued_certificates WHERE organization_id = $1
             AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR type = $3)`,
          [countOrg, query.status ?? null, query.type ?? null],
        );
        return row.n;
      };
      const check = async (expectedAll: number): Promise<void> => {
        for (const query of queries) {
          const res = await countOwner.agent
            .get(list(countOrg))
            .query({ ...query, limit: 1 })
            .expect(200);
          expect({ query, total: res.body.total }).toEqual({ query, total: await exact(query) });
          // The page agrees with the total: walking every page finds exactly `total` items.
          const all = await countOwner.agent
            .get(list(countOrg))
            .query({ ...query, limit: 200 })
            .expect(200);
          expect(all.body.items).toHaveLength(res.body.total);
        }
        const none = await countOwner.agent.get(list(countOrg)).expect(200);
        expect(none.body.total).toBe(expectedAll);
      };
      await check(0);
      const a = await cert({ org: countOrg, user: student1 });
      const b = await cert({ org: countOrg, user: student2, type: 'program', subject: program });
      await cert({ org: countOrg, user: student2, status: 'revoked' });
      // Another organization's certificates never count here.
      await cert({ org: orgB, user: student1 });
      await check(3);
      // Many concurrent writers (separate transactions) all counted.
      await Promise.all(Array.from({ length: 12 }, () => cert({ org: countOrg, user: student1 })));
      await check(15);
      await countOwner.agent
        .post(`${list(countOrg)}/${a.id}/revoke`)
        .send({ reason: 'Counted' })
        .expect(200);
      await check(15);
      await countOwner.agent
        .post(`${list(countOrg)}/${b.id}/reissue`)
        .send({ name: 'Renamed', reason: 'Counted' })
        .expect(201);
      await check(16);
      expect((await countOwner.agent.get(list(countOrg)).query({ status: 'replaced' }).expect(200)).body.total).toBe(1);
      // A multi-row statement and a rolled-back one.
      await t.db.query(`DELETE FROM issued_certificates WHERE organization_id = $1 AND status = 'revoked'`, [countOrg]);
      await check(14);
      const runner = t.db.createQueryRunner();
      await runner.startTransaction();
      await runner.query(`DELETE FROM issued_certificates WHERE organization_id = $1`, [countOrg]);
      await runner.rollbackTransaction();
      await runner.release();
      await check(14);
      // Narrower filters are still counted exactly (course, program, cohort).
      const byProgram = await countOwner.agent.get(list(countOrg)).query({ path_id: program }).expect(200);
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM issued_certificates WHERE organization_id = $1 AND path_id = $2`,
        [countOrg, program],
      );
      expect(byProgram.body.total).toBe(n);
    });

    it('refuses malformed filters with 422', async () => {
      for (const query of [
        { course_id: 'nope' },
        { path_id: '123' },
        { cohort_id: 'x' },
        { status: 'valid' },
        { type: 'badge' },
      ]) {
        const res = await orgOwner.agent.get(list(org)).query(query).expect(422);
        expect(res.body.error.details[0].field).toBe(Object.keys(query)[0]);
      }
    });

    it("a teacher sees only certificates of their cohorts' students; a cohort they do not teach is 403", async () => {
      const mine = await orgTeacher.agent.get(list(org)).expect(200);
      expect(ids(mine)).toEqual([s1p.id, s1c1.id]);
      expect(mine.body.total).toBe(2);
      const filtered = await orgTeacher.agent.get(list(org)).query({ cohort_id: cohort1, type: 'course' }).expect(200);
      expect(ids(filtered)).toEqual([s1c1.id]);
      const other = await orgTeacher.agent.get(list(org)).query({ cohort_id: cohort2 }).expect(403);
      expect(other.body.error.code).toBe('forbidden');
      const theirs = await otherTeacher.agent.get(list(org)).expect(200);
      expect(ids(theirs)).toEqual([s2rev.id, s2c2.id]);
    });

    it('a teacher of no cohort sees nothing', async () => {
      const idle = await adult(t);
      await addMember(t, org, idle.user.id, 'teacher');
      const res = await idle.agent.get(list(org)).expect(200);
      expect(res.body).toMatchObject({ items: [], total: 0 });
    });

    it('a cohort of another organization is 404, for owners and teachers alike', async () => {
      for (const who of [orgOwner, orgTeacher]) {
        const res = await who.agent.get(list(org)).query({ cohort_id: cohortB }).expect(404);
        expect(res.body.error.code).toBe('not_found');
      }
      await orgOwner.agent.get(list(org)).query({ cohort_id: '00000000-0000-4000-8000-000000000000' }).expect(404);
    });

    it('a student gets 403, a member of another organization only 404', async () => {
      expect((await student1.agent.get(list(org)).expect(403)).body.error.code).toBe('forbidden');
      expect((await ownerB.agent.get(list(org)).expect(404)).body.error.code).toBe('not_found');
    });
  });

  describe('revoke and reissue (the state table)', () => {
    const revoke = (id: string, org = orgA): string => `${list(org)}/${id}/revoke`;
    const reissue = (id: string, org = orgA): string => `${list(org)}/${id}/reissue`;

    it('active → revoked (200), audited with the reason; then 409 for revoke and reissue', async () => {
      const c = await cert({ holder: 'To Revoke', cohortId: cohortA1 });
      const res = await admin.agent
        .post(revoke(c.id))
        .send({ reason: '  Plagiarism in the final project ' })
        .expect(200);
      expect(Object.keys(res.body).sort()).toEqual(CERTIFICATE_KEYS);
      expect(res.body).toMatchObject({
        id: c.id,
        code: c.code,
        status: 'revoked',
        revoke_reason: 'Plagiarism in the final project',
        replaced_by_code: null,
        cohort_id: cohortA1,
      });
      expect(Date.parse(res.body.revoked_at)).toBeGreaterThan(Date.now() - 60_000);
      const [entry] = (await auditOf('certificate.revoked')).filter((e) => e.target_id === c.id);
      expect(entry.metadata).toMatchObject({ reason: 'Plagiarism in the final project' });

      for (const [path, body] of [
        [revoke(c.id), { reason: 'again' }],
        [reissue(c.id), { name: 'New Name', reason: 'fix' }],
      ] as const) {
        const again = await owner.agent.post(path).send(body).expect(409);
        expect(again.body.error.code).toBe('certificate_already_revoked');
      }
      const listed = await owner.agent.get(list()).query({ status: 'revoked' }).expect(200);
      expect(listed.body.items.map((i: { id: string }) => i.id)).toContain(c.id);
    });

    it('active → replaced plus a new certificate (201) with the corrected name; old one links to it; audited', async () => {
      const old = await cert({
        holder: 'Jhon Smiht',
        type: 'program',
        subject: program,
        cohortId: cohortA1,
        title: 'Analista',
      });
      const res = await owner.agent
        .post(reissue(old.id))
        .send({ name: '  John Smith ', reason: 'Name misspelled by the registrar' })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual(CERTIFICATE_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        code: expect.stringMatching(CODE),
        type: 'program',
        status: 'active',
        holder: { user_id: student1.user.id, name: 'John Smith' },
        organization_id: orgA,
        course_id: null,
        path_id: program,
        cohort_id: cohortA1,
        title: 'Analista',
        issued_at: expect.any(String),
        revoked_at: null,
        revoke_reason: null,
        replaced_by_code: null,
      });
      expect(res.body.code).toMatch(/^PRG-/);
      expect(res.body.id).not.toBe(old.id);
      expect(res.body.code).not.toBe(old.code);

      const all = (await owner.agent.get(list()).query({ path_id: program, limit: 200 }).expect(200)).body.items;
      const oldNow = all.find((i: { id: string }) => i.id === old.id);
      expect(oldNow).toMatchObject({ status: 'replaced', replaced_by_code: res.body.code, revoke_reason: null });
      const [row] = await t.db.query(`SELECT replaced_by_id, reissue_reason FROM issued_certificates WHERE id = $1`, [
        old.id,
      ]);
      expect(row.replaced_by_id).toBe(res.body.id);
      const [fresh] = await t.db.query(`SELECT replaces_id, reissue_reason FROM issued_certificates WHERE id = $1`, [
        res.body.id,
      ]);
      expect(fresh).toEqual({ replaces_id: old.id, reissue_reason: 'Name misspelled by the registrar' });

      const [entry] = (await auditOf('certificate.reissued')).filter((e) => e.target_id === old.id);
      expect(entry.metadata).toMatchObject({ reason: 'Name misspelled by the registrar', replacement_id: res.body.id });

      const oldVerify = await t.client().get(verify(old.code)).expect(200);
      expect(oldVerify.body).toMatchObject({ status: 'replaced', replaced_by_code: res.body.code });
      const newVerify = await t.client().get(verify(res.body.code)).expect(200);
      expect(newVerify.body).toMatchObject({
        status: 'valid',
        holder_name: 'John Smith',
        credential: { type: 'program' },
      });

      // replaced → 409 for both operations; the new one can still be revoked.
      for (const [path, body] of [
        [revoke(old.id), { reason: 'no' }],
        [reissue(old.id), { name: 'X', reason: 'no' }],
      ] as const) {
        const again = await owner.agent.post(path).send(body).expect(409);
        expect(again.body.error.code).toBe('certificate_already_revoked');
      }
      await owner.agent.post(revoke(res.body.id)).send({ reason: 'Revoked after all' }).expect(200);
      const chain = await t.client().get(verify(old.code)).expect(200);
      expect(chain.body).toMatchObject({ status: 'replaced', replaced_by_code: res.body.code });
    });

    it('concurrent reissues of one certificate: exactly one 201, the others 409', async () => {
      const c = await cert({ holder: 'Race' });
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          owner.agent.post(reissue(c.id)).send({ name: `Race ${i}`, reason: 'race' }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM issued_certificates WHERE replaces_id = $1`, [
        c.id,
      ]);
      expect(n).toBe(1);
    });

    it('a certificate of another organization is 404 (and a malformed id too)', async () => {
      const b = await cert({ org: orgB });
      await owner.agent.post(revoke(b.id)).send({ reason: 'x' }).expect(404);
      await owner.agent.post(reissue(b.id)).send({ name: 'x', reason: 'x' }).expect(404);
      await owner.agent.post(revoke('not-a-uuid')).send({ reason: 'x' }).expect(404);
      const [row] = await t.db.query(`SELECT status FROM issued_certificates WHERE id = $1`, [b.id]);
      expect(row.status).toBe('active');
    });

    it('validates the reason (1..500) and the name (1..255)', async () => {
      const c = await cert();
      for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'r'.repeat(501) }, { reason: 5 }]) {
        const res = await owner.agent.post(revoke(c.id)).send(body).expect(422);
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain('reason');
      }
      for (const body of [
        { reason: 'ok' },
        { name: '', reason: 'ok' },
        { name: 'n'.repeat(256), reason: 'ok' },
        { name: 'ok', reason: 'r'.repeat(501) },
      ]) {
        await owner.agent.post(reissue(c.id)).send(body).expect(422);
      }
      const longest = await owner.agent
        .post(reissue(c.id))
        .send({ name: 'n'.repeat(255), reason: 'r'.repeat(500) })
        .expect(201);
      expect(longest.body.holder.name).toHaveLength(255);
      const r = await owner.agent
        .post(revoke(longest.body.id))
        .send({ reason: 'q'.repeat(500) })
        .expect(200);
      expect(r.body.revoke_reason).toHaveLength(500);
    });

    it('teachers and students may not revoke or reissue (403)', async () => {
      const c = await cert();
      for (const who of [teacher, student1]) {
        expect((await who.agent.post(revoke(c.id)).send({ reason: 'x' }).expect(403)).body.error.code).toBe(
          'forbidden',
        );
        await who.agent.post(reissue(c.id)).send({ name: 'x', reason: 'x' }).expect(403);
      }
    });
  });

  describe('GET /me/certificates', () => {
    it("lists the caller's certificates from every organization with the issuer, most recent first", async () => {
      const holder = await adult(t);
      await addMember(t, orgA, holder.user.id, 'student');
      await addMember(t, orgB, holder.user.id, 'student');
      const a = await cert({ org: orgA, user: holder, minutesAgo: 5 });
      const b = await cert({ org: orgB, user: holder, minutesAgo: 3, status: 'revoked' });
      await cert({ org: orgA, user: student2, minutesAgo: 1 });
      const res = await holder.agent.get('/api/v1/me/certificates').expect(200);
      expect(Object.keys(res.body)).toEqual(['items']);
      expect(res.body.items.map((i: { id: string }) => i.id)).toEqual([b.id, a.id]);
      expect(Object.keys(res.body.items[0]).sort()).toEqual([...CERTIFICATE_KEYS, 'organization'].sort());
      expect(res.body.items[0]).toMatchObject({ status: 'revoked', organization: { id: orgB, name: 'Escuela B' } });
      expect(res.body.items[1]).toMatchObject({ code: a.code, organization: { id: orgA, name: 'Universidad A' } });

      // A token acts in one organization: it sees that organization's certificates only.
      const token = await personalToken(t, holder, orgA, 'read');
      const viaToken = await bearer(t, token).get('/api/v1/me/certificates').expect(200);
      expect(viaToken.body.items.map((i: { id: string }) => i.id)).toEqual([a.id]);
    });

    it('is empty for someone who holds none, and needs a credential', async () => {
      const nobody = await adult(t);
      expect((await nobody.agent.get('/api/v1/me/certificates').expect(200)).body).toEqual({ items: [] });
      await t.http().get('/api/v1/me/certificates').expect(401);
    });
  });
});
