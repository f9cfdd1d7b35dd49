import ExcelJS from 'exceljs';
import { FileStore } from '@/core/files/file-store';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { REQUEST_ACCOUNT, REQUEST_ORGANIZATION, REPORT_COLUMNS } from '@/modules/insight/reports/testing';
import { ReportLimits, ReportsService } from '@/modules/insight/reports';
import { makeCourse } from '../../cross-tenant/learning.routes';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const DAY = 24 * 3_600_000;
type Body = Record<string, unknown>;
interface Rec extends Body {
  id: string;
}

/** Collects a binary response body into a Buffer. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function binary(res: any, cb: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
  res.on('error', (err: Error) => cb(err, Buffer.alloc(0)));
}

/**
 * Organization reports (extensions-v2 15): request rules (roles, teacher's cohorts, filters, tenancy, limits), the
 * job that builds CSV and XLSX from one snapshot (checked byte by byte and cell by cell), email and event, status,
 * download access, expiry and deletion. Run once per file store driver (extensions-v3 5.1): reports.e2e-spec.ts
 * on `file://`, reports-s3.e2e-spec.ts on a real S3 server.
 */
export function reportsSuite(storage: 'file' | 's3'): void {
  describe(`reports (${storage} store)`, () => reportsCases(storage));
}

function reportsCases(storage: 'file' | 's3'): void {
  let t: TestApp;
  let org: string;
  let orgB: string;
  let slug: string;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let student: SignedIn;
  let student2: SignedIn;
  let ownerB: SignedIn;
  let cohort: string;
  let cohortB: string;
  let courseId: string;
  let courseB: string;
  const limits = new ReportLimits(3);

  const path = (o = org): string => `/api/v1/organizations/${o}/reports`;

  /** Requests a report with fresh limits (the limits have their own test below). */
  async function request(s: SignedIn, body: Body, o = org): Promise<Rec> {
    const limiter = t.app.get(RateLimitService);
    await limiter.reset(REQUEST_ACCOUNT, s.user.id);
    await limiter.reset(REQUEST_ORGANIZATION, o);
    const res = await s.agent.post(path(o)).send(body);
    if (res.status !== 202) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function finished(s: SignedIn, id: string, o = org): Promise<Rec> {
    return waitUntil(
      async () => {
        const res = await s.agent.get(`${path(o)}/${id}`).expect(200);
        return ['completed', 'failed'].includes(res.body.status) ? (res.body as Rec) : null;
      },
      { what: `report ${id}` },
    );
  }

  async function download(s: SignedIn, id: string): Promise<{ status: number; body: Buffer; headers: Body }> {
    const res = await s.agent.get(`${path()}/${id}/download`).buffer(true).parse(binary);
    return { status: res.status, body: res.body as Buffer, headers: res.headers };
  }

  beforeAll(async () => {
    t = await createTestApp({ storage, overrides: [{ provide: ReportLimits, useValue: limits }] });
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Report Org');
    slug = (await t.db.query(`SELECT slug FROM organizations WHERE id = $1`, [org]))[0].slug;
    for (const [key, role] of [
      ['admin', 'admin'],
      ['teacher', 'teacher'],
      ['otherTeacher', 'teacher'],
      ['student', 'student'],
      ['student2', 'student'],
    ] as const) {
      const s = await adult(t);
      await addMember(t, org, s.user.id, role);
      if (key === 'admin') admin = s;
      if (key === 'teacher') teacher = s;
      if (key === 'otherTeacher') otherTeacher = s;
      if (key === 'student') student = s;
      if (key === 'student2') student2 = s;
    }
    cohort = (await owner.agent.post(`/api/v1/organizations/${org}/cohorts`).send({ name: 'Grupo, A' }).expect(201))
      .body.id;
    for (const [s, role] of [
      [student, 'student'],
      [teacher, 'teacher'],
    ] as const) {
      await owner.agent
        .post(`/api/v1/organizations/${org}/cohorts/${cohort}/members`)
        .send({ user_id: s.user.id, role })
        .expect(201);
    }
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Other Org');
    cohortB = (await ownerB.agent.post(`/api/v1/organizations/${orgB}/cohorts`).send({ name: 'B' }).expect(201)).body
      .id;
    const course = await makeCourse(t, owner.user.id, {
      title: 'Curso "uno"',
      lessons: [{ title: 'L1' }, { title: 'L2' }, { title: 'L3' }],
      visibility: 'restricted',
      organization_ids: [org],
    });
    courseId = course.id;
    courseB = (
      await makeCourse(t, owner.user.id, {
        title: 'Only B',
        visibility: 'restricted',
        organization_ids: [orgB],
        lessons: [{ title: 'x' }],
      })
    ).id;
    // Deterministic people and enrollments (fixtures through SQL: the learning routes have their own tests).
    await t.db.query(`UPDATE users SET name = $2, email = $3 WHERE id = $1`, [
      student.user.id,
      '=HYPERLINK("http://evil")',
      `ana.${t.suffix}@example.test`,
    ]);
    await t.db.query(`UPDATE users SET name = $2, email = $3 WHERE id = $1`, [
      student2.user.id,
      'Luis; Pérez',
      `luis.${t.suffix}@example.test`,
    ]);
    for (const s of [student, student2]) {
      await s.agent.post(`/api/v1/organizations/${org}/courses/${courseId}/enroll`).expect(201);
    }
    await t.db.query(
      `UPDATE enrollments SET enrolled_at = $3, last_activity_at = $4 WHERE organization_id = $1 AND user_id = $2`,
      [org, student.user.id, '2026-01-05T10:00:00.000Z', '2026-01-06T11:30:00.000Z'],
    );
    await t.db.query(
      `UPDATE enrollments SET enrolled_at = $3, last_activity_at = $3, status = 'completed', completed_at = $4
       WHERE organization_id = $1 AND user_id = $2`,
      [org, student2.user.id, '2026-02-01T08:00:00.000Z', '2026-02-03T09:15:00.123Z'],
    );
    await t.db.query(
      `INSERT INTO lesson_completions (organization_id, user_id, course_id, lesson_id) VALUES ($1, $2, $3, $4)`,
      [org, student.user.id, courseId, course.lessons[0].id],
    );
    for (const l of course.lessons) {
      await t.db.query(
        `INSERT INTO lesson_completions (organization_id, user_id, course_id, lesson_id) VALUES ($1, $2, $3, $4)`,
        [org, student2.user.id, courseId, l.id],
      );
    }
  });
  afterAll(() => t.close());

  const progressHeader = REPORT_COLUMNS.progress.map((c) => c.name).join(',');

  describe('CSV', () => {
    it('builds the progress report byte by byte, emails the requester and publishes report.finished', async () => {
      const queued = await request(owner, { type: 'progress', format: 'csv', lang: 'en' });
      expect(queued).toMatchObject({
        type: 'progress',
        format: 'csv',
        lang: 'en',
        separator: 'comma',
        filters: {},
        status: 'queued',
        rows: null,
        size_bytes: null,
        error_code: null,
        requested_by: { user_id: owner.user.id, name: 'Test Person' },
        started_at: null,
        finished_at: null,
        expires_at: null,
      });
      const done = await finished(owner, queued.id);
      expect(done.status).toBe('completed');
      expect(done.rows).toBe(2);
      expect(Date.parse(done.expires_at as string) - Date.parse(done.finished_at as string)).toBe(7 * DAY);

      const file = await download(owner, queued.id);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
      const day = (queued.created_at as string).slice(0, 10).replace(/-/g, '');
      expect(file.headers['content-disposition']).toBe(`attachment; filename="progress-${slug}-${day}.csv"`);
      expect(file.headers['cache-control']).toBe('private, no-store');
      const expected =
        '\uFEFF' +
        `${progressHeader}\r\n` +
        `${student.user.id},"'=HYPERLINK(""http://evil"")",ana.${t.suffix}@example.test,"Grupo, A",${courseId},` +
        `"Curso ""uno""",2026-01-05T10:00:00.000Z,active,33,1,3,,2026-01-06T11:30:00.000Z\r\n` +
        `${student2.user.id},Luis; Pérez,luis.${t.suffix}@example.test,,${courseId},"Curso ""uno""",` +
        `2026-02-01T08:00:00.000Z,completed,100,3,3,2026-02-03T09:15:00.123Z,2026-02-01T08:00:00.000Z\r\n`;
      expect(file.body.equals(Buffer.from(expected, 'utf8'))).toBe(true);
      expect(done.size_bytes).toBe(Buffer.byteLength(expected));

      const mail = await t.mail.waitFor(
        (m) => m.to.includes(owner.email) && m.subject === 'Tu informe de progreso está listo',
      );
      expect(mail.text).toContain(`http://web.test/org/reports/${queued.id}`);
      const events = await t.db.query(
        `SELECT payload, organization_id FROM domain_events WHERE name = 'report.finished' AND payload->>'report_id' = $1`,
        [queued.id],
      );
      expect(events).toEqual([
        {
          organization_id: org,
          payload: { report_id: queued.id, status: 'completed', requested_by: owner.user.id },
        },
      ]);
      const audit = await t.db.query(
        `SELECT action, actor_id, metadata FROM audit_log WHERE target_id = $1 ORDER BY created_at, action`,
        [queued.id],
      );
      expect(audit).toEqual([
        { action: 'report.requested', actor_id: owner.user.id, metadata: { type: 'progress', format: 'csv' } },
        { action: 'report.downloaded', actor_id: owner.user.id, metadata: { type: 'progress', format: 'csv' } },
      ]);
    });

    it('uses the semicolon separator, and quotes cells holding it', async () => {
      const r = await request(admin, {
        type: 'progress',
        format: 'csv',
        separator: 'semicolon',
        filters: { from: '2026-02-01' },
      });
      await finished(admin, r.id);
      const file = await download(admin, r.id);
      expect(file.body.toString('utf8')).toBe(
        '\uFEFF' +
          `${progressHeader.replace(/,/g, ';')}\r\n` +
          `${student2.user.id};"Luis; Pérez";luis.${t.suffix}@example.test;;${courseId};"Curso ""uno""";` +
          `2026-02-01T08:00:00.000Z;completed;100;3;3;2026-02-03T09:15:00.123Z;2026-02-01T08:00:00.000Z\r\n`,
      );
    });

    it('filters by local days of the organization, inclusive, and writes only the header when nothing matches', async () => {
      await owner.agent.patch(`/api/v1/organizations/${org}`).send({ time_zone: 'Pacific/Kiritimati' }).expect(200);
      try {
        // 2026-01-05T10:00Z is 00:00 on 2026-01-06 in Kiritimati (UTC+14): a day later than in UTC.
        const r = await request(owner, {
          type: 'progress',
          format: 'csv',
          filters: { from: '2026-01-06', to: '2026-01-06' },
        });
        await finished(owner, r.id);
        const text = (await download(owner, r.id)).body.toString('utf8');
        expect(text.split('\r\n').filter(Boolean)).toHaveLength(2);
        expect(text).toContain(student.user.id);
        const none = await request(owner, { type: 'progress', format: 'csv', filters: { to: '2026-01-05' } });
        expect((await finished(owner, none.id)).rows).toBe(0);
        expect((await download(owner, none.id)).body.toString('utf8')).toBe(`\uFEFF${progressHeader}\r\n`);
      } finally {
        await owner.agent.patch(`/api/v1/organizations/${org}`).send({ time_zone: 'UTC' }).expect(200);
      }
    });

    it("limits a cohort report to the cohort's students", async () => {
      const r = await request(teacher, { type: 'progress', format: 'csv', filters: { cohort_id: cohort } });
      await finished(teacher, r.id);
      const text = (await download(teacher, r.id)).body.toString('utf8');
      expect(text).toContain(student.user.id);
      expect(text).not.toContain(student2.user.id);
    });

    it('fails a report over the row cap with report_too_large and emails reports.failed', async () => {
      // The cap is lowered to 3 in this file; four memberships plus the owner make 6 engagement rows.
      const r = await request(owner, { type: 'engagement', format: 'csv' });
      const done = await finished(owner, r.id);
      expect(done).toMatchObject({ status: 'failed', error_code: 'report_too_large', rows: null });
      await t.mail.waitFor((m) => m.to.includes(owner.email) && /No hemos podido|could not build/.test(m.subject));
      const res = await owner.agent.get(`${path()}/${r.id}/download`);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('report_not_ready');
      const events = await t.db.query(
        `SELECT payload->>'status' AS status FROM domain_events WHERE name = 'report.finished' AND payload->>'report_id' = $1`,
        [r.id],
      );
      expect(events).toEqual([{ status: 'failed' }]);
    });

    it('at the row cap exactly the report completes', async () => {
      const r = await request(owner, { type: 'engagement', format: 'csv', filters: { cohort_id: cohort } });
      // The cohort has one student: 1 row, well under; the cap of 3 is met by the progress report with 2 rows too.
      expect((await finished(owner, r.id)).status).toBe('completed');
      limits.maxRows = 2;
      try {
        const atCap = await request(owner, { type: 'progress', format: 'csv' });
        expect((await finished(owner, atCap.id)).rows).toBe(2);
        limits.maxRows = 1;
        const over = await request(owner, { type: 'progress', format: 'csv' });
        expect((await finished(owner, over.id)).error_code).toBe('report_too_large');
      } finally {
        limits.maxRows = 3;
      }
    });
  });

  it('builds every type with the spec columns in order', async () => {
    for (const type of ['certificates', 'engagement', 'exams', 'lti_results'] as const) {
      const r = await request(owner, { type, format: 'csv', filters: { cohort_id: cohort } });
      expect((await finished(owner, r.id)).status).toBe('completed');
      const text = (await download(owner, r.id)).body.toString('utf8');
      expect(text.split('\r\n')[0]).toBe(`\uFEFF${REPORT_COLUMNS[type].map((c) => c.name).join(',')}`);
    }
  });

  describe('XLSX', () => {
    it('writes one sheet named after the type, a bold frozen header, dates as dates and numbers as numbers', async () => {
      const r = await request(owner, { type: 'progress', format: 'xlsx' });
      await finished(owner, r.id);
      const file = await download(owner, r.id);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      expect(file.headers['content-disposition']).toMatch(
        new RegExp(`^attachment; filename="progress-${slug}-\\d{8}\\.xlsx"$`),
      );
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(file.body as unknown as ArrayBuffer);
      expect(book.worksheets.map((w) => w.name)).toEqual(['progress']);
      const sheet = book.getWorksheet('progress')!;
      expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(sheet.rowCount).toBe(3);
      const header = sheet.getRow(1);
      REPORT_COLUMNS.progress.forEach((c, i) => {
        expect(header.getCell(i + 1).value).toBe(c.name);
        expect(header.getCell(i + 1).font?.bold).toBe(true);
      });
      const row = (n: number): unknown[] => REPORT_COLUMNS.progress.map((_, i) => sheet.getRow(n).getCell(i + 1).value);
      expect(row(2)).toEqual([
        student.user.id,
        '=HYPERLINK("http://evil")', // a string cell, never a formula
        `ana.${t.suffix}@example.test`,
        'Grupo, A',
        courseId,
        'Curso "uno"',
        new Date('2026-01-05T10:00:00.000Z'),
        'active',
        33,
        1,
        3,
        null,
        new Date('2026-01-06T11:30:00.000Z'),
      ]);
      expect(sheet.getRow(2).getCell(2).type).toBe(ExcelJS.ValueType.String);
      expect(row(3)).toEqual([
        student2.user.id,
        'Luis; Pérez',
        `luis.${t.suffix}@example.test`,
        null,
        courseId,
        'Curso "uno"',
        new Date('2026-02-01T08:00:00.000Z'),
        'completed',
        100,
        3,
        3,
        new Date('2026-02-03T09:15:00.123Z'),
        new Date('2026-02-01T08:00:00.000Z'),
      ]);
    });
  });

  describe('access', () => {
    it('a teacher must name a cohort they teach; students cannot request', async () => {
      for (const [s, body, status] of [
        [teacher, { type: 'progress', format: 'csv' }, 403],
        [otherTeacher, { type: 'progress', format: 'csv', filters: { cohort_id: cohort } }, 403],
        [student, { type: 'progress', format: 'csv', filters: { cohort_id: cohort } }, 403],
        [owner, { type: 'progress', format: 'csv', filters: { cohort_id: cohortB } }, 404],
        [owner, { type: 'progress', format: 'csv', filters: { course_id: courseB } }, 404],
        [owner, { type: 'progress', format: 'csv', filters: { from: '2026-02-02', to: '2026-02-01' } }, 422],
        [owner, { type: 'nope', format: 'csv' }, 422],
        [owner, { type: 'progress', format: 'pdf' }, 422],
        [owner, { type: 'progress', format: 'csv', filters: { from: '2026-02-30' } }, 422],
      ] as [SignedIn, Body, number][]) {
        await t.app.get(RateLimitService).reset(REQUEST_ACCOUNT, s.user.id);
        await t.app.get(RateLimitService).reset(REQUEST_ORGANIZATION, org);
        const res = await s.agent.post(path()).send(body);
        expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
      }
      const count = await t.db.query(`SELECT count(*)::int AS n FROM reports WHERE requested_by = $1`, [
        otherTeacher.user.id,
      ]);
      expect(count[0].n).toBe(0);
    });

    it('owners and admins see every report; a teacher only their own; another organization nothing', async () => {
      const mine = await request(teacher, { type: 'progress', format: 'csv', filters: { cohort_id: cohort } });
      const ownerReport = await request(owner, { type: 'certificates', format: 'csv' });
      await finished(owner, ownerReport.id);
      await finished(teacher, mine.id);
      const teacherList = await teacher.agent.get(path()).expect(200);
      expect(teacherList.body.items.every((r: Body) => (r.requested_by as Body).user_id === teacher.user.id)).toBe(
        true,
      );
      await teacher.agent.get(`${path()}/${ownerReport.id}`).expect(404);
      expect((await download(teacher, ownerReport.id)).status).toBe(404);
      await otherTeacher.agent.get(`${path()}/${mine.id}`).expect(404);
      await admin.agent.get(`${path()}/${mine.id}`).expect(200);
      expect((await download(admin, mine.id)).status).toBe(200);
      await ownerB.agent.get(`${path()}/${mine.id}`).expect(404);
      await ownerB.agent.get(`${path(orgB)}/${mine.id}`).expect(404);
      await student.agent.get(path()).expect(403);
      const all = await owner.agent.get(path()).query({ type: 'certificates' }).expect(200);
      expect(all.body.items[0].id).toBe(ownerReport.id); // most recent first
      expect(all.body.items.every((r: Body) => r.type === 'certificates')).toBe(true);
      await owner.agent.get(`${path()}/not-a-uuid`).expect(404);
    });
  });

  describe('life', () => {
    it('expires 7 days after finishing: 410 on download before the schedule, and the schedule deletes the file', async () => {
      const r = await request(owner, { type: 'progress', format: 'csv' });
      await finished(owner, r.id);
      const key = (await t.db.query(`SELECT file_key FROM reports WHERE id = $1`, [r.id]))[0].file_key as string;
      expect(key).toBe(`reports/${org}/${r.id}.csv`);
      t.clock.advance(7 * DAY + 1000);
      try {
        await owner.agent.post('/api/v1/auth/refresh').expect(200);
        const res = await owner.agent.get(`${path()}/${r.id}/download`);
        expect(res.status).toBe(410);
        expect(res.body.error.code).toBe('report_expired');
        expect((await owner.agent.get(`${path()}/${r.id}`).expect(200)).body.status).toBe('expired');
        const row = (await t.db.query(`SELECT status, file_key FROM reports WHERE id = $1`, [r.id]))[0];
        expect(row).toEqual({ status: 'expired', file_key: null });
      } finally {
        t.clock.advance(-(7 * DAY + 1000));
        await owner.agent.post('/api/v1/auth/refresh').expect(200);
      }
    });

    it('the schedule expires reports nobody touches', async () => {
      const r = await request(owner, { type: 'progress', format: 'csv' });
      await finished(owner, r.id);
      const key = `reports/${org}/${r.id}.csv`;
      const store = t.app.get(FileStore);
      expect(await store.exists(key)).toBe(true);
      await t.db.query(`UPDATE reports SET expires_at = now() - interval '1 second' WHERE id = $1`, [r.id]);
      expect(await t.app.get(ReportsService).expireDue()).toBeGreaterThanOrEqual(1);
      expect((await t.db.query(`SELECT status FROM reports WHERE id = $1`, [r.id]))[0].status).toBe('expired');
      expect(await store.exists(key)).toBe(false);
    });

    it('delete removes the record and its file at once; a second delete is 404', async () => {
      const r = await request(owner, { type: 'progress', format: 'csv' });
      await finished(owner, r.id);
      const key = `reports/${org}/${r.id}.csv`;
      expect(await t.app.get(FileStore).exists(key)).toBe(true);
      await teacher.agent.delete(`${path()}/${r.id}`).expect(404);
      await owner.agent.delete(`${path()}/${r.id}`).expect(204);
      expect(await t.app.get(FileStore).exists(key)).toBe(false);
      await owner.agent.get(`${path()}/${r.id}`).expect(404);
      await owner.agent.delete(`${path()}/${r.id}`).expect(404);
    });

    it('a completed report whose file is gone from the store answers 410 report_expired (not 500), unaudited', async () => {
      const r = await request(owner, { type: 'progress', format: 'csv' });
      await finished(owner, r.id);
      await t.app.get(FileStore).delete(`reports/${org}/${r.id}.csv`);
      const res = await owner.agent.get(`${path()}/${r.id}/download`);
      expect(res.status).toBe(410);
      expect(res.body.error.code).toBe('report_expired');
      expect(
        await t.db.query(`SELECT 1 FROM audit_log WHERE action = 'report.downloaded' AND target_id = $1`, [r.id]),
      ).toEqual([]);
    });
  });

  describe('job failures', () => {
    it('a failed try is retried (running); the last try fails the report with internal_error and tells the requester', async () => {
      const [row] = await t.db.query(
        `INSERT INTO reports (organization_id, type, format, lang, requested_by, created_at)
         VALUES ($1, 'progress', 'csv', 'en', $2, now()) RETURNING id`,
        [org, admin.user.id],
      );
      const store = t.app.get(FileStore);
      const spy = jest.spyOn(store, 'write').mockRejectedValue(new Error('disk full'));
      try {
        const service = t.app.get(ReportsService);
        await expect(service.generate(org, row.id, 1)).rejects.toThrow('disk full');
        expect((await admin.agent.get(`${path()}/${row.id}`).expect(200)).body.status).toBe('running');
        await service.generate(org, row.id, 3);
      } finally {
        spy.mockRestore();
      }
      const done = (await admin.agent.get(`${path()}/${row.id}`).expect(200)).body;
      expect(done).toMatchObject({ status: 'failed', error_code: 'internal_error', rows: null });
      await t.mail.waitFor((m) => m.to.includes(admin.email) && /No hemos podido|could not build/.test(m.subject));
      // Another organization's job finds nothing and changes nothing.
      await t.app.get(ReportsService).generate(orgB, row.id, 1);
    });
  });

  describe('rate limits', () => {
    it('5 per hour per account: the fifth is accepted, the sixth is 429', async () => {
      const limiter = t.app.get(RateLimitService);
      await limiter.reset(REQUEST_ORGANIZATION, org);
      const s = await adult(t);
      await addMember(t, org, s.user.id, 'admin');
      for (let i = 0; i < 5; i++) await s.agent.post(path()).send({ type: 'certificates', format: 'csv' }).expect(202);
      const res = await s.agent.post(path()).send({ type: 'certificates', format: 'csv' });
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('too_many_requests');
      expect(res.headers['retry-after']).toBeDefined();
    });

    it('20 per hour per organization: the twentieth is accepted, the twenty-first is 429', async () => {
      const limiter = t.app.get(RateLimitService);
      await limiter.reset(REQUEST_ORGANIZATION, org);
      const admins: SignedIn[] = [];
      for (let i = 0; i < 5; i++) {
        const s = await adult(t);
        await addMember(t, org, s.user.id, 'admin');
        admins.push(s);
      }
      for (let i = 0; i < 20; i++) {
        await admins[i % 5].agent.post(path()).send({ type: 'certificates', format: 'csv' }).expect(202);
      }
      const res = await admins[0].agent.post(path()).send({ type: 'certificates', format: 'csv' });
      expect(res.status).toBe(429);
      // Another organization keeps its own count.
      await limiter.reset(REQUEST_ACCOUNT, ownerB.user.id);
      await ownerB.agent.post(path(orgB)).send({ type: 'certificates', format: 'csv' }).expect(202);
    });
  });
}
