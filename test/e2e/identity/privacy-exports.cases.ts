import { Injectable, Module } from '@nestjs/common';
import { FileStore } from '@/core/files/file-store';
import {
  collectRows,
  PersonalData,
  type PersonalDataHandler,
  PersonalDataRegistry,
} from '@/core/privacy/personal-data';
import { SchedulerService } from '@/core/queue/scheduler.service';
import { PrivacyExportsService } from '@/modules/identity/privacy';
import { EXPIRE_EXPORTS } from '@/modules/identity/privacy/testing';
import { type SignedIn, stepUpByEmail } from '../../support/auth';
import { binary, downloadExport, exportOf } from '../../support/privacy';
import { storedBytes } from '../../support/stored-files';
import { addMember, adult } from '../../support/tenancy';
import type { TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const DAY = 24 * 3600 * 1000;

/** An exporter of the test that fails while `failing` is set (an area whose export breaks). */
const exporter = { failing: false };

@Injectable()
@PersonalData({ area: 'probe', key: 'fragile', tables: [] })
class FragileExporter implements PersonalDataHandler {
  export() {
    return exporter.failing ? Promise.reject(new Error('planned exporter failure')) : Promise.resolve([]);
  }
  erase() {
    return Promise.resolve();
  }
}

@Module({ providers: [FragileExporter] })
export class FragileExporterModule {}

/** What the export cases need from the suite that runs them: its app, an organization and its owner. */
export interface PrivacyExportsContext {
  t: TestApp;
  org: string;
  owner: SignedIn;
}

/**
 * Data exports (extensions-v2 17.3) through the file store (extensions-v3 5.1): built, encrypted before they are
 * stored, streamed on download, expired (the file deleted). The app must mount FragileExporterModule.
 */
export function privacyExportsCases(context: () => PrivacyExportsContext): void {
  let t: TestApp;
  let org: string;
  let owner: SignedIn;
  beforeAll(() => {
    ({ t, org, owner } = context());
  });

  const count = async (sql: string, params: unknown[]): Promise<number> =>
    (await t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM (${sql}) x`, params))[0].n;

  describe('exports (17.3)', () => {
    it('builds a ZIP with one file per registered area, a manifest and a README in the person’s language; the email says so; download needs a step-up', async () => {
      const s = await adult(t);
      await addMember(t, org, s.user.id, 'student');
      await s.agent.patch('/api/v1/me/profile').send({ name: 'Paula Export', locale: 'en' }).expect(200);
      await s.agent.post('/api/v1/me/privacy/consents').send({ kind: 'terms', granted: true }).expect(201);
      // Someone else with data in the same tables.
      const other = await adult(t);
      await addMember(t, org, other.user.id, 'student');
      await other.agent.patch('/api/v1/me/profile').send({ name: 'Otto Other' }).expect(200);
      await other.agent.post('/api/v1/me/privacy/consents').send({ kind: 'terms', granted: true }).expect(201);

      const before = t.mail.count();
      const ready = await exportOf(t, s);
      expect(ready).toEqual({
        id: expect.any(String),
        status: 'ready',
        size_bytes: expect.any(Number),
        created_at: expect.any(String),
        ready_at: expect.any(String),
        expires_at: new Date(Date.parse(ready.ready_at as string) + 7 * DAY).toISOString(),
      });
      const mail = await t.mail.waitForTo(s.email, { after: before, subject: /export is ready/ });
      expect(mail.text).toContain('http://web.test/settings/privacy');

      const noStepUp = await s.agent.get(`/api/v1/me/privacy/exports/${ready.id}/download`);
      expect(noStepUp.status).toBe(403);
      expect(noStepUp.body.error.code).toBe('step_up_required');

      const { res, files } = await downloadExport(t, s, ready.id);
      expect(res.headers['content-type']).toBe('application/zip');
      expect(res.headers['cache-control']).toBe('private, no-store');
      const day = (ready.ready_at as string).slice(0, 10).replace(/-/g, '');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="export-${day}.zip"`);
      expect(res.body.length).toBe(ready.size_bytes);

      const registry = t.app.get(PersonalDataRegistry);
      const areas = [...registry.byArea().keys()];
      expect([...files.keys()].sort()).toEqual(
        [...areas.map((a) => `${a}.json`), 'manifest.json', 'README.txt'].sort(),
      );
      const manifest = JSON.parse(files.get('manifest.json')!);
      expect(manifest).toMatchObject({ format_version: 1, user_id: s.user.id, generated_at: expect.any(String) });
      expect(manifest.files.map((f: { area: string }) => f.area).sort()).toEqual([...areas].sort());
      for (const f of manifest.files as { name: string; area: string; records: number }[]) {
        const content = JSON.parse(files.get(f.name)!) as Record<string, unknown[]>;
        expect(Object.keys(content).sort()).toEqual(
          registry
            .byArea()
            .get(f.area)!
            .map((h) => h.key)
            .sort(),
        );
        expect(Object.values(content).reduce((n, rows) => n + rows.length, 0)).toBe(f.records);
      }
      expect(files.get('README.txt')).toContain('A copy of your personal data');
      const account = JSON.parse(files.get('account.json')!);
      expect(account.profile).toEqual([
        expect.objectContaining({ id: s.user.id, email: s.email, name: 'Paula Export' }),
      ]);
      const consents = JSON.parse(files.get('consents.json')!);
      expect(consents.consents.map((c: { kind: string }) => c.kind).sort()).toEqual(['adult_declaration', 'terms']);
      const all = [...files.values()].join('\n');
      for (const foreign of [other.user.id, other.email, 'Otto Other', owner.email]) {
        expect([foreign, all.includes(foreign)]).toEqual([foreign, false]);
      }
      // Encrypted at rest: the stored file is not the ZIP.
      const [row] = await t.db.query(`SELECT file_key FROM privacy_exports WHERE id = $1`, [ready.id]);
      const stored = await storedBytes(t, row.file_key);
      expect(stored.subarray(0, 4).toString()).toBe('LPE1');
      expect(stored.includes(Buffer.from(s.email))).toBe(false);
      // Audited, platform-level.
      const audit = await t.db.query(
        `SELECT actor_id, organization_id, target_id FROM audit_log WHERE action = 'privacy.export_downloaded' AND actor_id = $1`,
        [s.user.id],
      );
      expect(audit).toEqual([{ actor_id: s.user.id, organization_id: null, target_id: ready.id }]);
      // Listed, most recent first.
      const list = await s.agent.get('/api/v1/me/privacy/exports').expect(200);
      expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([ready.id]);
      expect((await s.agent.get('/api/v1/me/privacy').expect(200)).body.exports).toEqual([ready]);
    });

    it('a streamed exporter pages through rows sharing one microsecond without losing or repeating any (audit, 2 500 rows)', async () => {
      const s = await adult(t);
      await t.db.query(
        `INSERT INTO audit_log (action, actor_id, metadata, created_at)
         SELECT 'bench.same_time', $1, '{}'::jsonb, '2026-01-01T00:00:00.123456Z' FROM generate_series(1, 1500)`,
        [s.user.id],
      );
      await t.db.query(
        `INSERT INTO audit_log (action, actor_id, metadata, created_at)
         SELECT 'bench.spread', $1, '{}'::jsonb, '2026-01-01T00:00:00.123456Z'::timestamptz + (i || ' microseconds')::interval
         FROM generate_series(1, 1000) AS i`,
        [s.user.id],
      );
      const handler = t.app
        .get(PersonalDataRegistry)
        .handlers()
        .find((h) => h.area === 'audit' && h.key === 'entries')!;
      const rows = await collectRows(handler.handler.export(s.user.id, t.db.manager));
      const ids = rows.filter((r) => String(r.action).startsWith('bench.')).map((r) => r.id);
      expect(ids).toHaveLength(2500);
      expect(new Set(ids).size).toBe(2500);
      expect(rows.every((r) => !('cursor_at' in r))).toBe(true);
    });

    it('one export at a time (409 export_in_progress); 3 per day per account (429); nothing queued by a refusal', async () => {
      const s = await adult(t);
      await t.db.query(`INSERT INTO privacy_exports (user_id, status, created_at) VALUES ($1, 'running', now())`, [
        s.user.id,
      ]);
      const busy = await s.agent.post('/api/v1/me/privacy/exports').expect(409);
      expect(busy.body.error.code).toBe('export_in_progress');
      await t.db.query(`UPDATE privacy_exports SET status = 'failed' WHERE user_id = $1`, [s.user.id]);
      await exportOf(t, s);
      await exportOf(t, s);
      const limited = await s.agent.post('/api/v1/me/privacy/exports').expect(429);
      expect(limited.headers['retry-after']).toEqual(expect.any(String));
      expect(await count(`SELECT 1 FROM privacy_exports WHERE user_id = $1`, [s.user.id])).toBe(3);
      const fresh = await adult(t);
      await fresh.agent.post('/api/v1/me/privacy/exports').send({ format: 'csv' }).expect(422);
      expect(await count(`SELECT 1 FROM privacy_exports WHERE user_id = $1`, [fresh.user.id])).toBe(0);
    });

    it('a failing exporter fails the try (retried); the last try marks the export failed and leaves no file', async () => {
      const s = await adult(t);
      const [row] = await t.db.query(
        `INSERT INTO privacy_exports (user_id, status, created_at) VALUES ($1, 'queued', now()) RETURNING id`,
        [s.user.id],
      );
      const exports = t.app.get(PrivacyExportsService);
      exporter.failing = true;
      try {
        await expect(exports.build(row.id, s.user.id, 1)).rejects.toThrow('planned exporter failure');
        expect((await s.agent.get(`/api/v1/me/privacy/exports/${row.id}`).expect(200)).body.status).toBe('running');
        await expect(exports.build(row.id, s.user.id, 3)).rejects.toThrow('planned exporter failure');
      } finally {
        exporter.failing = false;
      }
      const failed = (await s.agent.get(`/api/v1/me/privacy/exports/${row.id}`).expect(200)).body;
      expect(failed).toMatchObject({ status: 'failed', size_bytes: null, ready_at: null, expires_at: null });
      expect(await t.app.get(FileStore).exists(`privacy-exports/${s.user.id}/${row.id}.zip`)).toBe(false);
      // A failed export does not block the next one.
      expect((await exportOf(t, s)).status).toBe('ready');
    });

    it('someone else’s export, an unknown id and a malformed id are 404; before it is ready the download is 409', async () => {
      const s = await adult(t);
      const other = await adult(t);
      const ready = await exportOf(t, s);
      await other.agent.get(`/api/v1/me/privacy/exports/${ready.id}`).expect(404);
      await stepUpByEmail(t, other);
      await other.agent.get(`/api/v1/me/privacy/exports/${ready.id}/download`).expect(404);
      await s.agent.get('/api/v1/me/privacy/exports/not-a-uuid').expect(404);
      const [queued] = await t.db.query(
        `INSERT INTO privacy_exports (user_id, status, created_at) VALUES ($1, 'queued', now()) RETURNING id`,
        [other.user.id],
      );
      const notReady = await other.agent.get(`/api/v1/me/privacy/exports/${queued.id}/download`).expect(409);
      expect(notReady.body.error.code).toBe('export_not_ready');
    });

    it('expires 7 days after it is ready: the file is deleted, the record says expired and a download is 410 (on read and by the schedule)', async () => {
      const s = await adult(t);
      const first = await exportOf(t, s);
      const second = await exportOf(t, s);
      const keys = await t.db.query<{ id: string; file_key: string }[]>(
        `SELECT id, file_key FROM privacy_exports WHERE user_id = $1 ORDER BY created_at`,
        [s.user.id],
      );
      const key = (id: string) => keys.find((k) => k.id === id)!.file_key;
      const exists = (id: string) => t.app.get(FileStore).exists(key(id));
      expect([await exists(first.id), await exists(second.id)]).toEqual([true, true]);
      t.clock.advance(7 * DAY - 60_000);
      await s.agent.post('/api/v1/auth/refresh').expect(200);
      expect((await s.agent.get(`/api/v1/me/privacy/exports/${first.id}`).expect(200)).body.status).toBe('ready');
      t.clock.advance(120_000);
      await s.agent.post('/api/v1/auth/refresh').expect(200);
      // On read.
      expect((await s.agent.get(`/api/v1/me/privacy/exports/${first.id}`).expect(200)).body.status).toBe('expired');
      expect(await exists(first.id)).toBe(false);
      await stepUpByEmail(t, s);
      const gone = await binary(s.agent.get(`/api/v1/me/privacy/exports/${first.id}/download`));
      expect(gone.status).toBe(410);
      expect(JSON.parse(gone.body.toString()).error.code).toBe('export_expired');
      // By the schedule, for an export nobody touches.
      const jobId = await t.app.get(SchedulerService).enqueue(EXPIRE_EXPORTS, t.clock.now());
      await waitUntil(
        async () => (await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [jobId]))[0]?.status === 'completed',
        { what: 'the expiry schedule' },
      );
      expect(await exists(second.id)).toBe(false);
      expect(await t.db.query(`SELECT status, file_key FROM privacy_exports WHERE id = $1`, [second.id])).toEqual([
        { status: 'expired', file_key: null },
      ]);
    });

    it('a ready export whose file is gone from the store answers 410 export_expired (not 500), unaudited', async () => {
      const s = await adult(t);
      const ready = await exportOf(t, s);
      const [row] = await t.db.query(`SELECT file_key FROM privacy_exports WHERE id = $1`, [ready.id]);
      await t.app.get(FileStore).delete(row.file_key);
      await stepUpByEmail(t, s);
      const gone = await binary(s.agent.get(`/api/v1/me/privacy/exports/${ready.id}/download`));
      expect(gone.status).toBe(410);
      expect(JSON.parse(gone.body.toString()).error.code).toBe('export_expired');
      expect(
        await t.db.query(`SELECT 1 FROM audit_log WHERE action = 'privacy.export_downloaded' AND target_id = $1`, [
          ready.id,
        ]),
      ).toEqual([]);
    });
  });
}
