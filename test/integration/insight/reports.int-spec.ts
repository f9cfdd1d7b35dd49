import { randomUUID } from 'node:crypto';
import { TypeOrmModule } from '@nestjs/typeorm';
import ExcelJS from 'exceljs';
import type { Membership } from '@/core/auth/tenancy';
import { UserEntity } from '@/modules/identity/users/testing';
import { ReportLimits, ReportsService } from '@/modules/insight/reports';
import { REPORT_COLUMNS, ReportsRepository } from '@/modules/insight/reports/testing';
import { levelOf } from '@/modules/practice/gamification/testing';
import { OrganizationEntity } from '@/modules/tenancy/organizations/testing';
import { ORGANIZATIONS, PEOPLE } from '../../support/integration-neighbours';
import {
  clockAt,
  createIntegration,
  type Integration,
  insertMember,
  insertOrganization,
  insertUser,
} from '../../support/integration';

/**
 * Report columns (extensions-v2 15.1) through the reports service, its repository's queries and the CSV and XLSX
 * writers on the real database: each type's columns in order and their values for a small known dataset, in an
 * organization whose local days are not UTC's (Mexico City, UTC-6 all year), the cohort and period filters, and
 * how each kind of cell is written.
 */
describe('Report columns (integration)', () => {
  let it_: Integration;
  let service: ReportsService;
  let org: string;
  let owner: Membership;
  const people: Record<'ana' | 'bob' | 'cy', { id: string; email: string }> = {} as never;
  const cohorts: Record<'a' | 'b', string> = {} as never;
  const courses: Record<'algebra' | 'geometry', string> = {} as never;

  beforeAll(async () => {
    it_ = await createIntegration({
      imports: [TypeOrmModule.forFeature([UserEntity, OrganizationEntity])],
      providers: [
        ReportsRepository,
        ReportsService,
        { provide: ReportLimits, useValue: new ReportLimits(1000) },
        ...PEOPLE,
        ...ORGANIZATIONS,
      ],
    });
    service = it_.get(ReportsService);
    const db = it_.db;
    const o = await insertUser(db, { locale: 'en' });
    org = await insertOrganization(db, o.id, { timeZone: 'America/Mexico_City' });
    owner = { organizationId: org, userId: o.id, role: 'owner' };
    // Joined in this order (the engagement report's order), after the owner.
    for (const [key, name] of [
      ['ana', 'Ana, "la" Pérez'],
      ['bob', '=HYPERLINK("http://evil")'],
      ['cy', 'Cy'],
    ] as const) {
      const u = await insertUser(db);
      await db.query(`UPDATE users SET name = $2 WHERE id = $1`, [u.id, name]);
      await insertMember(db, org, u.id, key === 'cy' ? 'teacher' : 'student');
      await db.query(`UPDATE memberships SET joined_at = $3 WHERE organization_id = $1 AND user_id = $2`, [
        org,
        u.id,
        { ana: '2026-10-01T00:00:00Z', bob: '2026-10-02T00:00:00Z', cy: '2026-10-03T00:00:00Z' }[key],
      ]);
      people[key] = u;
    }
    await db.query(`UPDATE memberships SET joined_at = '2026-09-01T00:00:00Z' WHERE user_id = $1`, [o.id]);
    for (const [key, name] of [
      ['b', 'Group B'],
      ['a', 'Group A'],
    ] as const) {
      const [row] = await db.query<{ id: string }[]>(
        `INSERT INTO cohorts (organization_id, name) VALUES ($1, $2) RETURNING id`,
        [org, name],
      );
      cohorts[key] = row.id;
    }
    // Ana studies in both groups (names in order, '; '); Bob in B; Cy teaches A (a teacher's cohort is not listed).
    for (const [cohort, user, role] of [
      [cohorts.b, people.ana.id, 'student'],
      [cohorts.a, people.ana.id, 'student'],
      [cohorts.b, people.bob.id, 'student'],
      [cohorts.a, people.cy.id, 'teacher'],
    ])
      await db.query(`INSERT INTO cohort_members (cohort_id, organization_id, user_id, role) VALUES ($1, $2, $3, $4)`, [
        cohort,
        org,
        user,
        role,
      ]);
    for (const [key, title, lessons] of [
      ['algebra', 'Algebra "I"', 8],
      ['geometry', 'Geometry', 3],
    ] as const) {
      const [row] = await db.query<{ id: string }[]>(
        `INSERT INTO courses (slug, title, language, level, status, visibility, published_at)
         VALUES ($1, $2, 'en', 'beginner', 'published', 'public', now()) RETURNING id`,
        [`${key}-${randomUUID().slice(0, 8)}`, title],
      );
      courses[key] = row.id;
      for (let i = 1; i <= lessons; i++)
        await db.query(`INSERT INTO lessons (course_id, position, title, language) VALUES ($1, $2, $3, 'en')`, [
          row.id,
          i,
          `Lesson ${i}`,
        ]);
    }
  });

  afterAll(async () => {
    await it_?.close();
  });

  /** Requests a report as the owner, runs its job and answers the file's bytes. */
  async function build(
    dto: Parameters<ReportsService['request']>[1],
  ): Promise<{ bytes: Buffer; rows: number | null; filename: string }> {
    const queued = await service.request(owner, dto);
    await service.generate(org, queued.id, 1);
    const done = await service.get(owner, queued.id);
    expect(done.status).toBe('completed');
    const file = await service.download(owner, queued.id);
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(Buffer.from(chunk as Buffer));
    return { bytes: Buffer.concat(chunks), rows: done.rows, filename: file.filename };
  }

  async function csv(dto: Omit<Parameters<ReportsService['request']>[1], 'format'>): Promise<string[]> {
    const { bytes, rows } = await build({ format: 'csv', ...dto });
    const text = bytes.toString('utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const lines = text.slice(1, -2).split('\r\n');
    expect(lines).toHaveLength(rows! + 1);
    const sep = dto.separator === 'semicolon' ? ';' : ',';
    expect(lines[0]).toBe(REPORT_COLUMNS[dto.type].map((c) => c.name).join(sep));
    return lines.slice(1);
  }

  describe('progress', () => {
    beforeAll(async () => {
      const enroll = async (user: string, course: string, at: string, done: number, completedAt?: string) => {
        await it_.db.query(
          `INSERT INTO enrollments (organization_id, user_id, course_id, status, enrolled_at, completed_at, last_activity_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [org, user, course, completedAt ? 'completed' : 'active', at, completedAt ?? null, completedAt ?? at],
        );
        await it_.db.query(
          `INSERT INTO lesson_completions (organization_id, user_id, course_id, lesson_id, completed_at)
           SELECT $1, $2, $3, id, $4 FROM lessons WHERE course_id = $3 ORDER BY position LIMIT $5`,
          [org, user, course, at, done],
        );
      };
      // 05:59:59Z is 23:59:59 on the 9th in Mexico City; 06:00Z is midnight of the 10th.
      await enroll(people.ana.id, courses.algebra, '2026-11-10T05:59:59Z', 1);
      await enroll(people.bob.id, courses.algebra, '2026-11-10T06:00:00Z', 3);
      await enroll(people.ana.id, courses.geometry, '2026-11-11T12:00:00Z', 3, '2026-11-12T08:30:00.250Z');
    });

    it('one row per enrollment by enrolled_at; percent of lessons half up; cohorts in name order', async () => {
      clockAt(it_.clock, '2026-11-20T12:00:00Z');
      const algebra = courses.algebra;
      expect(await csv({ type: 'progress' })).toEqual([
        // 1 of 8 lessons is 12.5%: 13.
        `${people.ana.id},"Ana, ""la"" Pérez",${people.ana.email},Group A; Group B,${algebra},"Algebra ""I""",` +
          `2026-11-10T05:59:59.000Z,active,13,1,8,,2026-11-10T05:59:59.000Z`,
        // The name is text, neutralized against formulas (and quoted for its quotes); 3 of 8 is 37.5%: 38.
        `${people.bob.id},"'=HYPERLINK(""http://evil"")",${people.bob.email},Group B,${algebra},"Algebra ""I""",` +
          `2026-11-10T06:00:00.000Z,active,38,3,8,,2026-11-10T06:00:00.000Z`,
        `${people.ana.id},"Ana, ""la"" Pérez",${people.ana.email},Group A; Group B,${courses.geometry},Geometry,` +
          `2026-11-11T12:00:00.000Z,completed,100,3,3,2026-11-12T08:30:00.250Z,2026-11-12T08:30:00.250Z`,
      ]);
    });

    it('from/to are local days of the organization, inclusive; cohort and course narrow the rows', async () => {
      clockAt(it_.clock, '2026-11-20T12:00:00Z');
      // The 10th in Mexico City runs from 06:00Z on the 10th to 06:00Z on the 11th: Bob only, not Ana's 05:59:59Z.
      const tenth = await csv({ type: 'progress', filters: { from: '2026-11-10', to: '2026-11-10' } });
      expect(tenth.map((l) => l.split(',')[0])).toEqual([people.bob.id]);
      const ninth = await csv({ type: 'progress', filters: { from: '2026-11-01', to: '2026-11-09' } });
      expect(ninth.map((l) => l.split(',')[0])).toEqual([people.ana.id]);
      // Group A's students: Ana (Cy teaches it); in Geometry only.
      const a = await csv({ type: 'progress', filters: { cohort_id: cohorts.a, course_id: courses.geometry } });
      expect(a).toHaveLength(1);
      expect(a[0]).toContain(`,${courses.geometry},Geometry,`);
      // Nothing matches: the header alone.
      expect(await csv({ type: 'progress', filters: { from: '2026-12-01' } })).toEqual([]);
    });
  });

  it('certificates: the certificate export columns, the replacement code, revocations', async () => {
    clockAt(it_.clock, '2026-11-20T12:00:00Z');
    const insert = async (v: Record<string, unknown>) => {
      const [row] = await it_.db.query<{ id: string }[]>(
        `INSERT INTO issued_certificates (code, type, status, organization_id, user_id, holder_name, course_id,
           cohort_id, title, issued_at, revoked_at, revoke_reason, replaced_by_id)
         VALUES ($1, 'course', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
        [
          v.code,
          v.status,
          org,
          v.user,
          v.holder ?? null,
          courses.geometry,
          v.cohort ?? null,
          'Geometry',
          v.issued,
          v.revoked ?? null,
          v.reason ?? null,
          v.replacedBy ?? null,
        ],
      );
      return row.id;
    };
    const newer = await insert({
      code: 'CERT-0002',
      status: 'active',
      user: people.ana.id,
      holder: 'Ana Pérez',
      cohort: cohorts.b,
      issued: '2026-11-13T10:00:00Z',
    });
    await insert({
      code: 'CERT-0001',
      status: 'replaced',
      user: people.ana.id,
      holder: 'Ana Perez',
      issued: '2026-11-12T09:00:00Z',
      replacedBy: newer,
    });
    await insert({
      code: 'CERT-0003',
      status: 'revoked',
      user: people.bob.id,
      issued: '2026-11-14T05:00:00Z',
      revoked: '2026-11-15T10:00:00Z',
      reason: '-copied; see ticket',
    });
    const g = courses.geometry;
    expect(await csv({ type: 'certificates', separator: 'semicolon' })).toEqual([
      `CERT-0001;replaced;course;Ana Perez;${people.ana.id};Geometry;${g};;;2026-11-12T09:00:00.000Z;;;CERT-0002`,
      `CERT-0002;active;course;Ana Pérez;${people.ana.id};Geometry;${g};;${cohorts.b};2026-11-13T10:00:00.000Z;;;`,
      // The reason holds the separator (quoted) and starts with '-' (neutralized).
      `CERT-0003;revoked;course;;${people.bob.id};Geometry;${g};;;2026-11-14T05:00:00.000Z;2026-11-15T10:00:00.000Z;` +
        `"'-copied; see ticket";`,
    ]);
    // Dated by issued_at in local days: the 13th in Mexico City runs to 06:00Z on the 14th (05:00Z is 23:00).
    const dated = await csv({ type: 'certificates', filters: { from: '2026-11-13', to: '2026-11-13' } });
    expect(dated.map((l) => l.split(',')[0])).toEqual(['CERT-0002', 'CERT-0003']);
  });

  describe('exams', () => {
    beforeAll(async () => {
      const [exam] = await it_.db.query<{ id: string }[]>(
        `INSERT INTO exams (course_id, title, duration_minutes, passing_score, questions_per_attempt, status, questions)
         VALUES ($1, 'Final', 30, 60, 1, 'published', '[{"id": "q"}]') RETURNING id`,
        [courses.algebra],
      );
      const session = (v: Record<string, unknown>) =>
        it_.db.query(
          `INSERT INTO exam_sessions (organization_id, exam_id, course_id, user_id, attempt, status, submitted_by,
             started_at, deadline_at, submitted_at, passing_score, fullscreen_required, max_focus_losses, flag_paste,
             score, passed, flags, review_status)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8::timestamptz + interval '30 minutes', $9, 60, false, 3, true,
             $10, $11, $12, $13)`,
          [
            org,
            exam.id,
            courses.algebra,
            v.user,
            v.attempt,
            v.submitted ? 'submitted' : 'in_progress',
            v.by ?? null,
            v.started,
            v.submitted ?? null,
            v.score ?? null,
            v.passed ?? null,
            JSON.stringify(v.flags ?? []),
            v.review ?? 'none',
          ],
        );
      await session({
        user: people.ana.id,
        attempt: 1,
        started: '2026-11-16T15:00:00Z',
        submitted: '2026-11-16T15:30:00Z',
        by: 'deadline',
        score: 50,
        passed: false,
        flags: [
          { code: 'focus_limit_exceeded', at: '2026-11-16T15:10:00Z' },
          { code: 'paste_detected', at: '2026-11-16T15:05:00Z' },
        ],
        review: 'pending',
      });
      await session({
        user: people.ana.id,
        attempt: 2,
        started: '2026-11-17T15:00:00Z',
        submitted: '2026-11-17T15:12:34.567Z',
        by: 'learner',
        score: 100,
        passed: true,
        review: 'accepted',
      });
      await session({ user: people.bob.id, attempt: 1, started: '2026-11-17T16:00:00Z' });
    });

    it('CSV: one row per session by started_at; flags by their order, booleans as true/false', async () => {
      clockAt(it_.clock, '2026-11-20T12:00:00Z');
      const lines = await csv({ type: 'exams' });
      expect(lines).toEqual([
        `${people.ana.id},"Ana, ""la"" Pérez",${people.ana.email},Group A; Group B,"Algebra ""I""",Final,1,` +
          `2026-11-16T15:00:00.000Z,2026-11-16T15:30:00.000Z,deadline,50,false,true,focus_limit_exceeded; paste_detected,pending`,
        `${people.ana.id},"Ana, ""la"" Pérez",${people.ana.email},Group A; Group B,"Algebra ""I""",Final,2,` +
          `2026-11-17T15:00:00.000Z,2026-11-17T15:12:34.567Z,learner,100,true,false,,accepted`,
        // In progress: no submission, score or pass yet.
        `${people.bob.id},"'=HYPERLINK(""http://evil"")",${people.bob.email},Group B,"Algebra ""I""",Final,1,` +
          `2026-11-17T16:00:00.000Z,,,,,false,,none`,
      ]);
      // Group B's students from the 17th (local): Ana's second session and Bob's (Ana's first was on the 16th).
      expect(await csv({ type: 'exams', filters: { cohort_id: cohorts.b, from: '2026-11-17' } })).toEqual(
        lines.slice(1),
      );
      // 15:00Z on the 16th is 09:00 on the 16th in Mexico City: a report of the 16th holds it alone.
      expect(await csv({ type: 'exams', filters: { from: '2026-11-16', to: '2026-11-16' } })).toEqual([lines[0]]);
    });

    it('XLSX: a sheet named "exams", bold frozen header, instants as dates, numbers as numbers, the rest strings', async () => {
      clockAt(it_.clock, '2026-11-20T12:00:00Z');
      const { bytes, rows, filename } = await build({ type: 'exams', format: 'xlsx' });
      expect(rows).toBe(3);
      const slug = (await it_.db.query<{ slug: string }[]>(`SELECT slug FROM organizations WHERE id = $1`, [org]))[0]
        .slug;
      expect(filename).toBe(`exams-${slug}-20261120.xlsx`);
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(bytes as unknown as ArrayBuffer);
      expect(book.worksheets.map((w) => w.name)).toEqual(['exams']);
      const sheet = book.getWorksheet('exams')!;
      expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(sheet.rowCount).toBe(4);
      const columns = REPORT_COLUMNS.exams;
      const values = (n: number): unknown[] => columns.map((_, i) => sheet.getRow(n).getCell(i + 1).value);
      expect(values(1)).toEqual(columns.map((c) => c.name));
      expect(columns.every((_, i) => sheet.getRow(1).getCell(i + 1).font?.bold === true)).toBe(true);
      expect(values(2)).toEqual([
        people.ana.id,
        'Ana, "la" Pérez',
        people.ana.email,
        'Group A; Group B',
        'Algebra "I"',
        'Final',
        1,
        new Date('2026-11-16T15:00:00.000Z'),
        new Date('2026-11-16T15:30:00.000Z'),
        'deadline',
        50,
        'false',
        'true',
        'focus_limit_exceeded; paste_detected',
        'pending',
      ]);
      // A formula-looking name is a string cell, never a formula; empty cells are empty.
      expect(values(4)).toEqual([
        people.bob.id,
        '=HYPERLINK("http://evil")',
        people.bob.email,
        'Group B',
        'Algebra "I"',
        'Final',
        1,
        new Date('2026-11-17T16:00:00.000Z'),
        null,
        null,
        null,
        null,
        'false',
        null,
        'none',
      ]);
      expect(sheet.getRow(4).getCell(2).type).toBe(ExcelJS.ValueType.String);
      expect(sheet.getRow(2).getCell(8).type).toBe(ExcelJS.ValueType.Date);
      expect(sheet.getRow(2).getCell(11).type).toBe(ExcelJS.ValueType.Number);
    });
  });

  it('lti_results: the scores tools reported, by updated_at, numbers as numbers and local-day periods', async () => {
    clockAt(it_.clock, '2026-11-20T12:00:00Z');
    const [tool] = await it_.db.query<{ id: string }[]>(
      `INSERT INTO lti_tools (name, initiate_login_url, redirect_uris, target_link_uri, jwks_url, registered_by,
         created_at, updated_at)
       VALUES ('Lab', 'https://tool.test/login', '{https://tool.test/launch}', 'https://tool.test/launch',
         'https://tool.test/jwks', 'manual', now(), now()) RETURNING id`,
    );
    const [context] = await it_.db.query<{ id: string }[]>(
      `INSERT INTO lti_contexts (organization_id, course_id) VALUES ($1, $2) RETURNING id`,
      [org, courses.algebra],
    );
    const [lesson] = await it_.db.query<{ id: string }[]>(
      `SELECT id FROM lessons WHERE course_id = $1 AND position = 2`,
      [courses.algebra],
    );
    const [item] = await it_.db.query<{ id: string }[]>(
      `INSERT INTO lti_line_items (tool_id, context_id, organization_id, lesson_id, label, score_maximum, created_at)
       VALUES ($1, $2, $3, $4, '@Lab 1', 20, now()) RETURNING id`,
      [tool.id, context.id, org, lesson.id],
    );
    const result = (user: string, given: number | null, activity: string, grading: string, at: string) =>
      it_.db.query(
        `INSERT INTO lti_results (line_item_id, user_id, organization_id, score_given, score_maximum,
           activity_progress, grading_progress, timestamp, updated_at)
         VALUES ($1, $2, $3, $4, 20, $5, $6, $7, $7)`,
        [item.id, user, org, given, activity, grading, at],
      );
    // 05:30Z on the 18th is still the 17th in Mexico City.
    await result(people.bob.id, 12.5, 'Completed', 'FullyGraded', '2026-11-18T05:30:00.000Z');
    await result(people.ana.id, null, 'InProgress', 'Pending', '2026-11-18T07:00:00.000Z');
    const c = courses.algebra;
    const lines = await csv({ type: 'lti_results' });
    expect(lines).toEqual([
      // The label starts with '@': neutralized; the score keeps its decimals.
      `${people.bob.id},${people.bob.email},${c},${lesson.id},'@Lab 1,12.5,20,Completed,FullyGraded,2026-11-18T05:30:00.000Z`,
      `${people.ana.id},${people.ana.email},${c},${lesson.id},'@Lab 1,,20,InProgress,Pending,2026-11-18T07:00:00.000Z`,
    ]);
    expect(await csv({ type: 'lti_results', filters: { to: '2026-11-17' } })).toEqual([lines[0]]);
    expect(await csv({ type: 'lti_results', filters: { from: '2026-11-18', cohort_id: cohorts.a } })).toEqual([
      lines[1],
    ]);
  });

  it('engagement: one row per member by joining; active days, lessons and reviews in the organization’s days', async () => {
    clockAt(it_.clock, '2026-11-20T12:00:00Z');
    const hour = (user: string, at: string, lessons: number, reviews: number) =>
      it_.db.query(
        `INSERT INTO learning_activity_hourly (organization_id, user_id, hour, lessons_completed, reviews)
         VALUES ($1, $2, $3, $4, $5)`,
        [org, user, at, lessons, reviews],
      );
    // 05:00Z and 07:00Z on the 10th are two local days (the 9th at 23:00, the 10th at 01:00); 23:00Z is the 10th.
    await hour(people.ana.id, '2026-11-10T05:00:00Z', 2, 0);
    await hour(people.ana.id, '2026-11-10T07:00:00Z', 0, 5);
    await hour(people.ana.id, '2026-11-10T23:00:00Z', 1, 4);
    // 02:00Z on the 12th is still the 11th in Mexico City.
    await hour(people.bob.id, '2026-11-12T02:00:00Z', 1, 0);
    // XP (gamification's ledger and totals, arranged as its ledger service writes them): a period counts the rows
    // created in its local days. Ana: 05:00Z on the 10th is the 9th locally, 07:00Z the 10th; 100 XP is level 2.
    // Bob: 05:59Z on the 11th is still the 10th locally, 06:00Z is the 11th; 99 XP is still level 1.
    const xp = async (user: string, rows: [string, number][]) => {
      for (const [at, amount] of rows)
        await it_.db.query(
          `INSERT INTO xp_ledger (organization_id, user_id, source, source_id, amount, local_date, occurred_at, created_at)
           VALUES ($1, $2, 'lesson', $3, $4, $5::timestamptz::date, $5, $5)`,
          [org, user, randomUUID(), amount, at],
        );
      const total = rows.reduce((n, [, amount]) => n + amount, 0);
      await it_.db.query(
        `INSERT INTO xp_totals (organization_id, user_id, xp, level, updated_at) VALUES ($1, $2, $3, $4, now())`,
        [org, user, total, levelOf(total)],
      );
    };
    await xp(people.ana.id, [
      ['2026-11-01T12:00:00Z', 70],
      ['2026-11-10T05:00:00Z', 10],
      ['2026-11-10T07:00:00Z', 20],
    ]);
    await xp(people.bob.id, [
      ['2026-11-11T05:59:00Z', 40],
      ['2026-11-11T06:00:00Z', 59],
    ]);
    // Streaks (the person's, in their zone: UTC here; today is the 20th), as last evaluated, and active days.
    const streak = async (
      user: string,
      s: { count: number; last: string; first: string; through: string; freezes: number },
      active: string[],
    ) => {
      await it_.db.query(
        `INSERT INTO streaks (user_id, run_count, run_last, longest, freezes, first_active_on, last_active_on,
           evaluated_through, grants_through, updated_at) VALUES ($1, $2, $3, $2, $4, $5, $6, $7, $7, now())`,
        [user, s.count, s.last, s.freezes, s.first, active.at(-1) ?? s.last, s.through],
      );
      for (const d of active)
        await it_.db.query(
          `INSERT INTO activity_days (user_id, organization_id, local_date, active) VALUES ($1, $2, $3, true)`,
          [user, org, d],
        );
    };
    // Ana: a live run of the 17th..19th, evaluated through the 19th, and active today: 4.
    await streak(
      people.ana.id,
      { count: 3, last: '2026-11-19', first: '2026-11-17', through: '2026-11-19', freezes: 1 },
      ['2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'],
    );
    // Bob: a run of 5 that ended on the 12th, no freeze to cover the 13th: lapsed, 0 (the stored count is stale).
    await streak(
      people.bob.id,
      { count: 5, last: '2026-11-12', first: '2026-11-08', through: '2026-11-12', freezes: 0 },
      ['2026-11-08', '2026-11-09', '2026-11-10', '2026-11-11', '2026-11-12'],
    );
    // Cy: active the 17th and 18th, not yesterday (the 19th) but a freeze covers it (not evaluated yet): 2.
    await streak(
      people.cy.id,
      { count: 2, last: '2026-11-18', first: '2026-11-17', through: '2026-11-18', freezes: 1 },
      ['2026-11-17', '2026-11-18'],
    );
    const read = async (filters?: { from?: string; to?: string; cohort_id?: string }) =>
      (await csv({ type: 'engagement', filters })).map((line) => {
        // Read from the right: only the name may hold a comma (it is quoted).
        const cells = line.split(',');
        const [, role, cohortNames, xpInPeriod, xpTotal, level, streakCurrent, active, lessons, reviews, last] =
          cells.slice(-11);
        return {
          user_id: cells[0],
          role,
          cohorts: cohortNames,
          xp_in_period: xpInPeriod,
          xp_total: xpTotal,
          level,
          streak_current: streakCurrent,
          active_days_in_period: active,
          lessons_completed_in_period: lessons,
          reviews_in_period: reviews,
          last_active_on: last,
        };
      });
    const all = await read();
    expect(all).toEqual([
      {
        user_id: owner.userId,
        role: 'owner',
        cohorts: '',
        xp_in_period: '0',
        xp_total: '0',
        level: '1',
        streak_current: '0',
        active_days_in_period: '0',
        lessons_completed_in_period: '0',
        reviews_in_period: '0',
        last_active_on: '',
      },
      {
        user_id: people.ana.id,
        role: 'student',
        cohorts: 'Group A; Group B',
        xp_in_period: '100',
        xp_total: '100',
        level: '2',
        streak_current: '4',
        active_days_in_period: '2',
        lessons_completed_in_period: '3',
        reviews_in_period: '9',
        last_active_on: '2026-11-10',
      },
      {
        user_id: people.bob.id,
        role: 'student',
        cohorts: 'Group B',
        xp_in_period: '99',
        xp_total: '99',
        level: '1',
        streak_current: '0',
        active_days_in_period: '1',
        lessons_completed_in_period: '1',
        reviews_in_period: '0',
        last_active_on: '2026-11-11',
      },
      {
        user_id: people.cy.id,
        role: 'teacher',
        cohorts: '',
        xp_in_period: '0',
        xp_total: '0',
        level: '1',
        streak_current: '2',
        active_days_in_period: '0',
        lessons_completed_in_period: '0',
        reviews_in_period: '0',
        last_active_on: '',
      },
    ]);
    // The period is the 10th, local: Ana's 07:00Z and 23:00Z hours, her 20 XP of 07:00Z and Bob's 40 of 05:59Z on
    // the 11th; the totals, levels, streaks and last_active_on are not limited by the period.
    const tenth = await read({ from: '2026-11-10', to: '2026-11-10', cohort_id: cohorts.b });
    expect(
      tenth.map((r) => [
        r.user_id,
        r.xp_in_period,
        r.xp_total,
        r.level,
        r.streak_current,
        r.active_days_in_period,
        r.lessons_completed_in_period,
        r.reviews_in_period,
        r.last_active_on,
      ]),
    ).toEqual([
      [people.ana.id, '20', '100', '2', '4', '1', '1', '9', '2026-11-10'],
      [people.bob.id, '40', '99', '1', '0', '0', '0', '0', '2026-11-11'],
    ]);
  });
});
