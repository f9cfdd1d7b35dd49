import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type TestAgent from 'supertest/lib/agent';
import type { Membership } from '@/core/auth/tenancy';
import type { Locale } from '@/core/mail/mail-template';
import {
  EXPORT_SEPARATORS,
  exportCells,
  exportHeaders,
  type ExportRow,
  type ExportSeparator,
} from '@/modules/learning/certificates/testing';
import { CertificateExportService } from '@/modules/learning/certificates';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * The export's bytes come from PostgreSQL's CSV writer (COPY) with the cells formatted by the SELECT. This compares
 * them, byte for byte, with the writer the API had before: the rows read by the driver, `exportCells` (localized
 * words, ISO times, `neutralizeCell`) and `csv-stringify` with the export's options.
 */
async function download(agent: TestAgent, path: string, query: object): Promise<Buffer> {
  const res = await agent
    .get(path)
    .query(query)
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  expect(res.status).toBe(200);
  return res.body as Buffer;
}

describe('certificate export bytes (COPY versus the reference writer)', () => {
  let t: TestApp;
  let owner: SignedIn;
  let org: string;
  let subjectOf: () => Promise<{ course: string; path: string }>;

  // Every cell shape that matters to the CSV writer or to formula neutralization.
  const TRICKY = [
    '=SUM(A1:A2)',
    '+34 600 000 000',
    '-1 reason',
    '@import',
    '\tTabbed',
    '\rCarriage',
    'in\ttab',
    'Pérez, Ana "la Jefa"',
    '"quoted"',
    'line 1\nline 2',
    'crlf\r\ninside',
    'ends with CR\r',
    'ends with LF\n',
    '\nstarts with LF',
    'semi;colon',
    'comma,only',
    'Zoë Ñúñez 日本語 😀',
    ' leading space',
    'trailing space ',
    "'already quoted",
    'back\\slash',
    '\\.',
    '=1;2',
    '=cmd|"/c calc"!A1',
    '"',
    '""',
    ',',
    ';',
    'plain',
  ];

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Bytes Org');
    const holder = await adult(t);
    await addMember(t, org, holder.user.id, 'student');
    // A course or program of its own per certificate (one active certificate per holder and subject).
    subjectOf = async (): Promise<{ course: string; path: string }> => {
      const suffix = randomBytes(5).toString('hex');
      const [course] = await t.db.query(
        `INSERT INTO courses (slug, title, language, level, status) VALUES ($1, 'C', 'en', 'beginner', 'published') RETURNING id`,
        [`c-${suffix}`],
      );
      const [path] = await t.db.query(
        `INSERT INTO learning_paths (slug, title, kind, status) VALUES ($1, 'P', 'program', 'published') RETURNING id`,
        [`p-${suffix}`],
      );
      return { course: course.id, path: path.id };
    };
    const [cohort] = await t.db.query(`INSERT INTO cohorts (organization_id, name) VALUES ($1, 'K') RETURNING id`, [
      org,
    ]);
    // One certificate per tricky value, as holder, title, revocation reason and (a legacy) code, with the statuses,
    // types and times rotating; microseconds in the times (the driver's Date keeps milliseconds, truncated).
    for (const [i, value] of TRICKY.entries()) {
      const status = (['active', 'revoked', 'replaced'] as const)[i % 3];
      const program = i % 2 === 1;
      const { course, path } = await subjectOf();
      await t.db.query(
        `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, path_id, cohort_id,
           title, issued_at, status, revoked_at, revoke_reason)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          i % 4 === 0 ? `${value}#${i}` : `CRS-${String(i).padStart(4, '0')}-BYTE`,
          program ? 'program' : 'course',
          org,
          holder.user.id,
          i % 5 === 4 ? null : value,
          program ? null : course,
          program ? path : null,
          i % 2 === 0 ? cohort.id : null,
          value === '' ? 'x' : value,
          `2026-03-01 09:30:${String(i).padStart(2, '0')}.${String(123456 + i * 111111).slice(0, 6)}+00`,
          status,
          status === 'active' ? null : `2026-03-02 10:00:00.${String(999999 - i).padStart(6, '0')}+00`,
          status === 'revoked' ? value : i % 3 === 0 ? '' : null,
        ],
      );
    }
    // Replacements: each replaced certificate names the code of the next one.
    await t.db.query(
      `UPDATE issued_certificates c SET replaced_by_id = n.id
       FROM issued_certificates n
       WHERE c.organization_id = $1 AND n.organization_id = $1 AND c.status = 'replaced'
         AND n.issued_at = (SELECT min(x.issued_at) FROM issued_certificates x WHERE x.organization_id = $1 AND x.issued_at > c.issued_at)`,
      [org],
    );
  });
  afterAll(() => t.close());

  async function reference(lang: Locale, sep: ExportSeparator, status?: string): Promise<Buffer> {
    const rows = await t.db.query<ExportRow[]>(
      `SELECT c.code, c.status, c.type, c.holder_name, c.user_id, c.title, c.course_id, c.path_id, c.cohort_id,
         c.issued_at, c.revoked_at, c.revoke_reason, r.code AS replaced_by_code
       FROM issued_certificates c LEFT JOIN issued_certificates r ON r.id = c.replaced_by_id
       WHERE c.organization_id = $1 AND ($2::text IS NULL OR c.status = $2) ORDER BY c.issued_at DESC, c.id DESC`,
      [org, status ?? null],
    );
    const csv = stringify([exportHeaders(lang), ...rows.map((row) => exportCells(row, lang))], {
      bom: true,
      delimiter: EXPORT_SEPARATORS[sep],
      record_delimiter: '\r\n',
      quoted_match: /[\r\n]/,
    });
    return Buffer.from(csv, 'utf8');
  }

  for (const lang of ['en', 'es'] as const) {
    for (const sep of ['comma', 'semicolon'] as const) {
      it(`lang=${lang}, sep=${sep}: the same bytes as the reference writer`, async () => {
        const bytes = await download(owner.agent, `/api/v1/organizations/${org}/issued-certificates/export`, {
          lang,
          sep,
        });
        const expected = await reference(lang, sep);
        expect(bytes.toString('utf8')).toBe(expected.toString('utf8'));
        expect(bytes.equals(expected)).toBe(true);
        // The dataset does reach every case: quoted line breaks, doubled quotes, neutralized cells.
        const text = bytes.toString('utf8');
        expect(text).toContain('"line 1\nline 2"');
        expect(text).toContain('"crlf\r\ninside"');
        expect(text).toContain(`"'=cmd|""/c calc""!A1"`);
        expect(text).toContain("'\tTabbed");
      });
    }
  }

  it('a destination that fails mid-file: the COPY is read to its end, the audit entry commits, the connection returns', async () => {
    const big = await createOrganization(t, owner, 'Big Bytes Org');
    const holder = await adult(t);
    await t.db.query(
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, title, issued_at, status,
         revoked_at)
       SELECT 'BIG-' || g, 'course', $1, $2, repeat('Name ', 20) || g, $3, 'Title ' || g, now() - make_interval(secs => g),
         'replaced', now()
       FROM generate_series(1, 3000) AS g`,
      [big, holder.user.id, (await subjectOf()).course],
    );
    const membership: Membership = { organizationId: big, userId: owner.user.id, role: 'owner' };
    const service = t.app.get(CertificateExportService);
    const file = await service.prepare(membership, { lang: 'en' }, undefined);
    let writes = 0;
    await expect(
      file.write(
        new Writable({
          highWaterMark: 1024,
          write(_chunk: Buffer, _e, done) {
            writes++;
            done(writes > 2 ? new Error('client went away') : undefined);
          },
        }),
      ),
    ).rejects.toThrow('client went away');
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM audit_log WHERE organization_id = $1 AND action = 'certificates.exported'`,
      [big],
    );
    expect(n).toBe(1);
    // Every pooled connection is usable (none left mid-COPY): as many exports as the pool holds, in parallel.
    const again = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const f = await service.prepare(membership, { lang: 'en' }, undefined);
        let bytes = 0;
        await f.write(
          new Writable({
            write(chunk: Buffer, _e, done) {
              bytes += chunk.length;
              done();
            },
          }),
        );
        return bytes;
      }),
    );
    expect(new Set(again).size).toBe(1);
    expect(again[0]).toBeGreaterThan(300_000);
  });

  it('a filter (inlined as a literal in the COPY) keeps the same rows and bytes', async () => {
    const bytes = await download(owner.agent, `/api/v1/organizations/${org}/issued-certificates/export`, {
      lang: 'es',
      status: 'revoked',
    });
    expect(bytes.equals(await reference('es', 'comma', 'revoked'))).toBe(true);
  });
});
