import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type TestAgent from 'supertest/lib/agent';
import type { Membership } from '@/core/auth/tenancy';
import { TransactionRunner } from '@/core/database/transaction';
import { CertificateExportService, CertificatesService } from '@/modules/learning/certificates';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const HEADER_EN =
  'Code,Status,Type,Holder,Holder ID,Title,Course ID,Program ID,Cohort ID,Issued at (UTC),Revoked at (UTC),Revocation reason,Replaced by';
const HEADER_ES =
  'Código;Estado;Tipo;Titular;ID del titular;Título;ID del curso;ID del programa;ID de la cohorte;Emitido (UTC);Revocado (UTC);Motivo de la revocación;Reemplazado por';

interface Download {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
  /** Without the BOM. */
  text: string;
  lines: string[];
  body: { error?: { code: string } };
}

async function download(agent: TestAgent, path: string, query: object = {}, headers: object = {}): Promise<Download> {
  const res = await agent
    .get(path)
    .query(query)
    .set(headers as Record<string, string>)
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  const bytes = res.body as Buffer;
  const text = bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3).toString('utf8') : bytes.toString('utf8');
  let body = {};
  if (res.headers['content-type']?.startsWith('application/json')) body = JSON.parse(bytes.toString('utf8'));
  return { status: res.status, headers: res.headers, bytes, text, lines: text.split('\r\n'), body };
}

describe('certificate export', () => {
  let t: TestApp;
  let org: string;
  let owner: SignedIn;
  let teacher: SignedIn;
  let student: SignedIn;
  let other: SignedIn;
  let course: string;
  let cohortT: string;
  let cohortOther: string;
  let foreignCohort: string;
  const exportPath = (o = org): string => `/api/v1/organizations/${o}/issued-certificates/export`;

  async function newCourse(): Promise<string> {
    const [row] = await t.db.query(
      `INSERT INTO courses (slug, title, language, level, status) VALUES ($1, 'Curso', 'es', 'beginner', 'published') RETURNING id`,
      [`c-${randomBytes(5).toString('hex')}`],
    );
    return row.id;
  }

  async function cert(v: {
    user: SignedIn;
    holder: string;
    code?: string;
    subject?: string;
    issuedAt: string;
    status?: 'active' | 'revoked';
    reason?: string | null;
    title?: string;
    o?: string;
  }): Promise<string> {
    const [row] = await t.db.query(
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, title, issued_at, status,
         revoked_at, revoke_reason)
       VALUES ($1, 'course', $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [
        v.code ?? `CRS-${randomBytes(4).toString('hex').toUpperCase()}`,
        v.o ?? org,
        v.user.user.id,
        v.holder,
        v.subject ?? (await newCourse()),
        v.title ?? 'Estadística I',
        v.issuedAt,
        v.status ?? 'active',
        v.status === 'revoked' ? '2026-03-02T10:00:00.000Z' : null,
        v.reason ?? null,
      ],
    );
    return row.id;
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Export Org');
    teacher = await adult(t);
    student = await adult(t);
    other = await adult(t);
    await addMember(t, org, teacher.user.id, 'teacher');
    await addMember(t, org, student.user.id, 'student');
    await addMember(t, org, other.user.id, 'student');
    const mk = async (name: string, members: [SignedIn, string][], o = org, by = owner): Promise<string> => {
      const id = (await by.agent.post(`/api/v1/organizations/${o}/cohorts`).send({ name }).expect(201)).body.id;
      for (const [p, role] of members) {
        await by.agent
          .post(`/api/v1/organizations/${o}/cohorts/${id}/members`)
          .send({ user_id: p.user.id, role })
          .expect(201);
      }
      return id;
    };
    cohortT = await mk('Taught', [
      [teacher, 'teacher'],
      [student, 'student'],
    ]);
    cohortOther = await mk('Other', [[other, 'student']]);
    const foreignOwner = await adult(t);
    const foreign = await createOrganization(t, foreignOwner, 'Foreign');
    foreignCohort = await mk('Foreign cohort', [], foreign, foreignOwner);
    course = await newCourse();
  });
  afterAll(() => t.close());

  describe('format', () => {
    let org1: string;
    let o1: SignedIn;
    let p: SignedIn;
    beforeAll(async () => {
      o1 = await adult(t);
      org1 = await createOrganization(t, o1, 'Format Org');
      p = await adult(t);
      await addMember(t, org1, p.user.id, 'student');
    });

    it('is UTF-8 with a BOM, RFC 4180 (CRLF, quoting), headers in English, byte for byte', async () => {
      const subject = await newCourse();
      await cert({
        o: org1,
        user: p,
        holder: 'Pérez, Ana "la Jefa"',
        code: 'CRS-AAAA-BBBB',
        subject,
        title: 'Línea 1\nLínea 2',
        issuedAt: '2026-03-01T09:30:00.000Z',
        status: 'revoked',
        reason: 'Copia',
      });
      const res = await download(o1.agent, exportPath(org1), { lang: 'en' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toMatch(
        /^attachment; filename="certificates-format-org-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.bytes.subarray(0, 3)).toEqual(BOM);
      const expected =
        `${HEADER_EN}\r\n` +
        `CRS-AAAA-BBBB,revoked,course,"Pérez, Ana ""la Jefa""",${p.user.id},"Línea 1\nLínea 2",${subject},,,` +
        `2026-03-01T09:30:00.000Z,2026-03-02T10:00:00.000Z,Copia,\r\n`;
      expect(res.bytes).toEqual(Buffer.concat([BOM, Buffer.from(expected, 'utf8')]));
    });

    it('semicolon separator with Spanish headers and values; quotes and line breaks still quote a cell', async () => {
      const res = await download(o1.agent, exportPath(org1), { lang: 'es', sep: 'semicolon' });
      expect(res.status).toBe(200);
      expect(res.lines[0]).toBe(HEADER_ES);
      expect(res.text).toContain(
        `CRS-AAAA-BBBB;revocado;curso;"Pérez, Ana ""la Jefa""";${p.user.id};"Línea 1\nLínea 2";`,
      );
      expect(res.text).toContain(';2026-03-01T09:30:00.000Z;2026-03-02T10:00:00.000Z;Copia;\r\n');
    });

    it('neutralizes formula cells (=, +, -, @, tab) and keeps them quoted when they hold the separator', async () => {
      const orgN = await createOrganization(t, o1, 'Neutral Org');
      const people = [await adult(t), await adult(t), await adult(t), await adult(t), await adult(t), await adult(t)];
      const names = ['=cmd|"/c calc"!A1', '+1', '-2', '@x', '\tTab', '=1;2'];
      for (const [i, person] of people.entries()) {
        await addMember(t, orgN, person.user.id, 'student');
        await cert({
          o: orgN,
          user: person,
          holder: names[i],
          issuedAt: `2026-01-0${i + 1}T00:00:00.000Z`,
          title: '=HYPERLINK("x")',
        });
      }
      const comma = await download(o1.agent, exportPath(orgN), { lang: 'en' });
      const holders = comma.lines.slice(1, -1).map((line) => line.split(',')[3]);
      // Most recent first: the reverse of insertion order.
      expect(holders).toEqual(["'=1;2", "'\tTab", "'@x", "'-2", "'+1", '"\'=cmd|""/c calc""!A1"']);
      expect(comma.text).toContain(`,"'=HYPERLINK(""x"")",`);
      const semi = await download(o1.agent, exportPath(orgN), { lang: 'en', sep: 'semicolon' });
      expect(semi.lines[1].split(';').slice(3, 4)).toEqual(['"\'=1']);
      expect(semi.lines[1]).toContain(`;"'=1;2";`);
      // A comma is an ordinary character once the separator is a semicolon, and the other way round.
      const plain = await adult(t);
      await addMember(t, orgN, plain.user.id, 'student');
      await cert({ o: orgN, user: plain, holder: 'Gómez, Ana', issuedAt: '2026-01-09T00:00:00.000Z' });
      const again = await download(o1.agent, exportPath(orgN), { lang: 'en', sep: 'semicolon' });
      expect(again.lines[1]).toContain(';Gómez, Ana;');
      const withComma = await download(o1.agent, exportPath(orgN), { lang: 'en' });
      expect(withComma.lines[1]).toContain(',"Gómez, Ana",');
      expect(withComma.lines[2]).toContain(`,'=1;2,`);
    });

    it('an empty result still has the BOM and the header line', async () => {
      const none = await download(o1.agent, exportPath(org1), { lang: 'en', status: 'replaced' });
      expect(none.bytes).toEqual(Buffer.concat([BOM, Buffer.from(`${HEADER_EN}\r\n`)]));
    });
  });

  describe('language', () => {
    let orgL: string;
    let o: SignedIn;
    beforeAll(async () => {
      o = await adult(t);
      orgL = await createOrganization(t, o, 'Lang Org'); // locale es
    });
    const first = async (query: object, headers: object = {}): Promise<string> =>
      (await download(o.agent, exportPath(orgL), query, headers)).lines[0].split(',')[0];

    it('lang beats Accept-Language, which beats the organization locale', async () => {
      expect(await first({ lang: 'es' }, { 'Accept-Language': 'en-US,en;q=0.9' })).toBe('Código');
      expect(await first({ lang: 'en' }, { 'Accept-Language': 'es-ES' })).toBe('Code');
      expect(await first({}, { 'Accept-Language': 'en-GB,es;q=0.5' })).toBe('Code');
      expect(await first({}, { 'Accept-Language': 'fr-FR,es-MX;q=0.8,en;q=0.7' })).toBe('Código');
      expect(await first({}, { 'Accept-Language': 'es;q=0.2, en;q=0.9' })).toBe('Code');
      expect(await first({}, { 'Accept-Language': 'en;q=0' })).toBe('Código');
      expect(await first({})).toBe('Código');
      await o.agent.patch(`/api/v1/organizations/${orgL}`).send({ locale: 'en' }).expect(200);
      expect(await first({})).toBe('Code');
      expect(await first({}, { 'Accept-Language': 'de, fr' })).toBe('Code');
      expect(await first({}, { 'Accept-Language': 'es-AR' })).toBe('Código');
    });

    it('refuses an unknown lang or sep with 422', async () => {
      for (const query of [{ lang: 'fr' }, { sep: 'tab' }, { sep: ';' }]) {
        const res = await download(o.agent, exportPath(orgL), query);
        expect([res.status, res.body.error?.code]).toEqual([422, 'validation_error']);
      }
    });
  });

  describe('filters, access and audit', () => {
    let mine: string;
    let theirs: string;
    let revoked: string;
    beforeAll(async () => {
      mine = await cert({ user: student, holder: 'Taught Student', subject: course, issuedAt: '2026-02-01T00:00:00Z' });
      theirs = await cert({ user: other, holder: 'Other Student', subject: course, issuedAt: '2026-02-02T00:00:00Z' });
      revoked = await cert({
        user: other,
        holder: 'Other Revoked',
        issuedAt: '2026-02-03T00:00:00Z',
        status: 'revoked',
      });
    });
    const holders = (d: Download): string[] => d.lines.slice(1, -1).map((l) => l.split(',')[3]);

    it('applies the list filters', async () => {
      expect(holders(await download(owner.agent, exportPath(), { lang: 'en' }))).toEqual([
        'Other Revoked',
        'Other Student',
        'Taught Student',
      ]);
      expect(holders(await download(owner.agent, exportPath(), { course_id: course }))).toEqual([
        'Other Student',
        'Taught Student',
      ]);
      expect(holders(await download(owner.agent, exportPath(), { status: 'revoked' }))).toEqual(['Other Revoked']);
      expect(holders(await download(owner.agent, exportPath(), { cohort_id: cohortOther }))).toEqual([
        'Other Revoked',
        'Other Student',
      ]);
      expect(
        holders(
          await download(owner.agent, exportPath(), { cohort_id: cohortOther, status: 'active', type: 'course' }),
        ),
      ).toEqual(['Other Student']);
      expect(holders(await download(owner.agent, exportPath(), { type: 'program' }))).toEqual([]);
      expect((await download(owner.agent, exportPath(), { course_id: 'x' })).status).toBe(422);
    });

    it("a teacher exports only their cohorts' students; another cohort 403, a foreign cohort 404; students 403", async () => {
      expect(holders(await download(teacher.agent, exportPath()))).toEqual(['Taught Student']);
      expect(holders(await download(teacher.agent, exportPath(), { cohort_id: cohortT }))).toEqual(['Taught Student']);
      const untaught = await download(teacher.agent, exportPath(), { cohort_id: cohortOther });
      expect([untaught.status, untaught.body.error?.code]).toEqual([403, 'forbidden']);
      const foreign = await download(owner.agent, exportPath(), { cohort_id: foreignCohort });
      expect([foreign.status, foreign.body.error?.code]).toEqual([404, 'not_found']);
      const byStudent = await download(student.agent, exportPath());
      expect([byStudent.status, byStudent.body.error?.code]).toEqual([403, 'forbidden']);
    });

    it('records certificates.exported with the row count, filter ids, language and separator', async () => {
      const res = await download(owner.agent, exportPath(), { course_id: course, sep: 'semicolon', lang: 'en' });
      expect(res.status).toBe(200);
      const audit = await owner.agent
        .get(`/api/v1/organizations/${org}/audit`)
        .query({ action: 'certificates.exported' })
        .expect(200);
      expect(audit.body.items[0]).toMatchObject({
        action: 'certificates.exported',
        actor_id: owner.user.id,
        metadata: {
          rows: 2,
          course_id: course,
          path_id: null,
          cohort_id: null,
          status: null,
          type: null,
          lang: 'en',
          sep: 'semicolon',
        },
      });
      expect(JSON.stringify(audit.body.items[0])).not.toContain('Taught Student');
      void mine;
      void theirs;
      void revoked;
    });
  });

  describe('the 10 000-row limit', () => {
    let orgBig: string;
    let o: SignedIn;
    let holder: SignedIn;
    beforeAll(async () => {
      o = await adult(t);
      orgBig = await createOrganization(t, o, 'Big Org');
      holder = await adult(t);
      await addMember(t, orgBig, holder.user.id, 'student');
      // 10 001 revoked certificates (the one-active-per-course rule does not apply to them), one course.
      await t.db.query(
        `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, title, status,
           issued_at, revoked_at)
         SELECT 'BIG-' || g, 'course', $1, $2, 'Holder ' || g, $3, 'Big', 'revoked',
           timestamptz '2026-01-01' + make_interval(secs => g), now()
         FROM generate_series(1, 10001) AS g`,
        [orgBig, holder.user.id, course],
      );
    });

    it('10 001 matching rows: 413 export_too_large, nothing sent and nothing audited', async () => {
      const res = await download(o.agent, exportPath(orgBig));
      expect([res.status, res.body.error?.code]).toEqual([413, 'export_too_large']);
      const audit = await o.agent
        .get(`/api/v1/organizations/${orgBig}/audit`)
        .query({ action: 'certificates.exported' })
        .expect(200);
      expect(audit.body.total).toBe(0);
    });

    it('exactly 10 000 rows: 200, streamed whole, most recent first', async () => {
      await t.db.query(`DELETE FROM issued_certificates WHERE organization_id = $1 AND code = 'BIG-1'`, [orgBig]);
      const res = await download(o.agent, exportPath(orgBig), { lang: 'en' });
      expect(res.status).toBe(200);
      expect(res.lines).toHaveLength(10_002); // header, 10 000 rows, the empty string after the last CRLF
      expect(res.lines[1].startsWith('BIG-10001,revoked,')).toBe(true);
      expect(res.lines[10_000].startsWith('BIG-2,revoked,')).toBe(true);
      const audit = await o.agent
        .get(`/api/v1/organizations/${orgBig}/audit`)
        .query({ action: 'certificates.exported' })
        .expect(200);
      expect(audit.body.items[0].metadata.rows).toBe(10_000);
    });
  });
});

/**
 * The embedded mode (PGlite) runs one transaction at a time across its connections: the export's cursor
 * transaction, and issuing inside a caller's transaction, must not need a second connection.
 */
describe('certificates on the embedded database (PGlite)', () => {
  let t: TestApp;
  let org: string;
  let user: string;
  beforeAll(async () => {
    t = await createTestApp({ embedded: true, redis: false, smtp: false });
    [{ id: user }] = await t.db.query(
      `INSERT INTO users (email, username, name) VALUES ('pglite@example.test', 'pglite', 'Embedded Person') RETURNING id`,
    );
    [{ id: org }] = await t.db.query(
      `INSERT INTO organizations (name, slug) VALUES ('Embedded', 'embedded') RETURNING id`,
    );
    await t.db.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [org, user]);
  }, 120_000);
  afterAll(() => t.close());

  it('issues inside a transaction, lists, revokes, reissues and streams an export', async () => {
    const [{ id: courseId }] = await t.db.query(
      `INSERT INTO courses (slug, title, language, level) VALUES ('embedded-course', 'Embedded', 'en', 'beginner') RETURNING id`,
    );
    const certificates = t.app.get(CertificatesService);
    const issued = await t.app
      .get(TransactionRunner)
      .run((tx) =>
        certificates.issue(
          { type: 'course', organizationId: org, userId: user, subjectId: courseId, title: 'Embedded', actorId: null },
          tx,
        ),
      );
    expect(issued).toMatchObject({ issued: true, certificate: { holder_name: 'Embedded Person', status: 'active' } });
    const membership: Membership = { organizationId: org, userId: user, role: 'owner' };
    const page = await certificates.list(membership, { limit: 50, offset: 0 });
    expect(page.total).toBe(1);
    const renamed = await certificates.reissue(org, issued.certificate.id, { name: 'Fixed', reason: 'typo' }, user);
    await certificates.revoke(org, renamed.id, 'done', user);
    expect((await certificates.verify(issued.certificate.code.toLowerCase())).status).toBe('replaced');

    const file = await t.app.get(CertificateExportService).prepare(membership, { lang: 'en' }, undefined);
    const chunks: Buffer[] = [];
    await file.write(
      new Writable({
        write(chunk: Buffer, _e, done) {
          chunks.push(chunk);
          done();
        },
      }),
    );
    const lines = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .split('\r\n');
    expect(lines[0]).toBe(HEADER_EN);
    expect(lines.slice(1, -1).map((l) => l.split(',').slice(1, 4))).toEqual([
      ['revoked', 'course', 'Fixed'],
      ['replaced', 'course', 'Embedded Person'],
    ]);
    // The connection went back to the pool: the next query does not wait on the export's transaction.
    expect((await certificates.list(membership, { limit: 50, offset: 0 })).total).toBe(2);
  });
});
