import { DateTime } from 'luxon';
import { isValidTimeZone } from '@/core/time/local-time';
import { IanaTimeZones1795930000000 } from '../../../migrations/1795930000000-IanaTimeZones';
import type { SignedIn } from '../../support/auth';
import { signIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

type Schema = { properties: Record<string, { maxLength?: number; description?: string; example?: string }> };

const INVALID: [string, unknown][] = [
  ['an unknown zone', 'Mars/Olympus'],
  ['null', null],
  ['65 characters', `Europe/${'x'.repeat(58)}`],
  ['an empty string', ''],
  ['a number', 1],
  ['an offset', '+01:00'],
  ['a zone with spaces', 'Europe/Madrid '],
  // ICU accepts these; PostgreSQL does not know them (one such person failed the platform-wide digest statement)
  ['an ICU-only id', 'AET'],
  ['an ICU-only area', 'SystemV/AST4'],
  // ... or reads them as a fixed abbreviation (America/Los_Angeles for ICU, UTC-8 all year for PostgreSQL)
  ['a name PostgreSQL takes for an abbreviation', 'PST'],
  ['a zone removed from the tz database', 'US/Pacific-New'],
];

/** ICU's ids outside the tz database's areas (Java-era three-letter ids and more). */
const ICU_ONLY = ['ACT', 'AET', 'AGT', 'ART', 'AST', 'BET', 'BST', 'CAT', 'CNT', 'CST', 'CTT', 'EAT', 'ECT', 'IET'];
const ICU_ONLY_MORE = ['IST', 'JST', 'MIT', 'NET', 'NST', 'PLT', 'PNT', 'PRT', 'PST', 'SST', 'VST', 'EST', 'GMT'];

/**
 * `time_zone` on people and organizations (extensions-v2 2.3): an IANA name luxon accepts, at most 64 characters,
 * never null, default `UTC`; shown in the records and documented in the OpenAPI description.
 */
describe('time zones of people and organizations', () => {
  let t: TestApp;
  let owner: SignedIn;
  let orgId: string;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgId = await createOrganization(t, owner);
  });
  afterAll(() => t.close());

  it('every zone the service accepts means the same instant-to-local-time in PostgreSQL as in luxon', async () => {
    // The zones a person or an organization may choose are computed with luxon (ICU) in TypeScript and with
    // `AT TIME ZONE` in SQL (reports, quiet hours, streaks, statistics): both must agree, in winter and summer.
    const candidates = [
      ...Intl.supportedValuesOf('timeZone'),
      ...['UTC', 'Etc/UTC', 'Etc/GMT+5', 'Asia/Kolkata', 'Europe/Kyiv', 'America/Argentina/Buenos_Aires'],
      ...ICU_ONLY,
      ...ICU_ONLY_MORE,
      ...['SystemV/AST4', 'US/Pacific-New', 'US/Eastern', 'europe/madrid'],
    ];
    const accepted = candidates.filter((zone) => isValidTimeZone(zone));
    expect(accepted.length).toBeGreaterThan(400);
    const instants = ['2026-01-15T12:00:00Z', '2026-07-15T12:00:00Z'];
    const rows = await t.db.query<{ zone: string; at: string; local: string | null }[]>(
      `SELECT z.zone, i.at, (SELECT to_char(i.at::timestamptz AT TIME ZONE n.name, 'YYYY-MM-DD"T"HH24:MI')
                               FROM pg_timezone_names n WHERE n.name = z.zone) AS local
         FROM unnest($1::text[]) AS z(zone) CROSS JOIN unnest($2::text[]) AS i(at)`,
      [accepted, instants],
    );
    const disagreeing = rows
      .filter((r) => r.local !== DateTime.fromISO(r.at, { zone: r.zone }).toFormat("yyyy-MM-dd'T'HH:mm"))
      .map((r) => `${r.zone} at ${r.at}: PostgreSQL ${r.local ?? 'does not know it'}`);
    expect(disagreeing).toEqual([]);
  });

  it('the migration gives stored zones the tz database spelling ICU reads them as (UTC when none)', async () => {
    const s = await signIn(t);
    const zones = ['PST', 'AET', 'europe/madrid', 'SystemV/AST4', 'Europe/Madrid', 'Etc/GMT+5', 'Factory'];
    const ids: string[] = [];
    for (const zone of zones) {
      const other = zone === 'Europe/Madrid' ? s : await signIn(t);
      await t.db.query(`UPDATE users SET time_zone = $1 WHERE id = $2`, [zone, other.user.id]);
      ids.push(other.user.id);
    }
    const runner = t.db.createQueryRunner();
    try {
      await new IanaTimeZones1795930000000().up(runner);
    } finally {
      await runner.release();
    }
    const rows = await t.db.query<{ id: string; time_zone: string }[]>(
      `SELECT id, time_zone FROM users WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const zoneOf = new Map(rows.map((r) => [r.id, r.time_zone]));
    expect(ids.map((id) => zoneOf.get(id))).toEqual([
      'America/Los_Angeles',
      'Australia/Sydney',
      'Europe/Madrid',
      'UTC',
      'Europe/Madrid',
      'Etc/GMT+5',
      'UTC',
    ]);
  });

  describe('PATCH /api/v1/me/profile', () => {
    it('a new account is in UTC', async () => {
      const s = await signIn(t);
      expect(s.user.time_zone).toBe('UTC');
      expect((await s.agent.get('/api/v1/auth/me').expect(200)).body.time_zone).toBe('UTC');
    });

    it('accepts Europe/Madrid and other IANA names; the record shows it', async () => {
      const s = await signIn(t);
      const res = await s.agent.patch('/api/v1/me/profile').send({ time_zone: 'Europe/Madrid' }).expect(200);
      expect(res.body.time_zone).toBe('Europe/Madrid');
      expect((await s.agent.get('/api/v1/auth/me').expect(200)).body.time_zone).toBe('Europe/Madrid');
      for (const zone of ['America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'UTC', 'Etc/GMT+5']) {
        await s.agent.patch('/api/v1/me/profile').send({ time_zone: zone }).expect(200);
        expect((await s.agent.get('/api/v1/auth/me').expect(200)).body.time_zone).toBe(zone);
      }
    });

    it('other fields leave it as it is', async () => {
      const s = await signIn(t);
      await s.agent.patch('/api/v1/me/profile').send({ time_zone: 'Europe/Madrid' }).expect(200);
      const res = await s.agent.patch('/api/v1/me/profile').send({ headline: 'Learner' }).expect(200);
      expect(res.body.time_zone).toBe('Europe/Madrid');
    });

    it.each(INVALID)('answers 422 for %s, and nothing changes', async (_why, value) => {
      const s = await signIn(t);
      await s.agent.patch('/api/v1/me/profile').send({ time_zone: 'Europe/Madrid' }).expect(200);
      const res = await s.agent.patch('/api/v1/me/profile').send({ name: 'Changed', time_zone: value }).expect(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['time_zone']);
      const me = (await s.agent.get('/api/v1/auth/me').expect(200)).body;
      expect(me.time_zone).toBe('Europe/Madrid');
      expect(me.name).not.toBe('Changed');
    });
  });

  describe('PATCH /api/v1/organizations/{org_id}', () => {
    it('a new organization is in UTC', async () => {
      const other = await adult(t);
      const res = await other.agent.post('/api/v1/organizations').send({ name: 'Zone Org' }).expect(201);
      expect(res.body.organization.time_zone).toBe('UTC');
    });

    it('an owner sets Europe/Madrid; the record and the member list of organizations show it; audited', async () => {
      const res = await owner.agent
        .patch(`/api/v1/organizations/${orgId}`)
        .send({ time_zone: 'Europe/Madrid' })
        .expect(200);
      expect(res.body.time_zone).toBe('Europe/Madrid');
      expect((await owner.agent.get(`/api/v1/organizations/${orgId}`).expect(200)).body.time_zone).toBe(
        'Europe/Madrid',
      );
      const mine = (await owner.agent.get('/api/v1/me/organizations').expect(200)).body;
      const entry = JSON.stringify(mine);
      expect(entry).toContain('"time_zone":"Europe/Madrid"');
      const [audit] = await t.db.query(
        `SELECT metadata FROM audit_log WHERE organization_id = $1 AND action = 'organization.updated'
         ORDER BY created_at DESC LIMIT 1`,
        [orgId],
      );
      expect(audit.metadata).toEqual({ fields: ['time_zone'] });
    });

    it.each(INVALID)('answers 422 for %s, and nothing changes', async (_why, value) => {
      await owner.agent.patch(`/api/v1/organizations/${orgId}`).send({ time_zone: 'Europe/Madrid' }).expect(200);
      const res = await owner.agent
        .patch(`/api/v1/organizations/${orgId}`)
        .send({ name: 'Renamed', time_zone: value })
        .expect(422);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['time_zone']);
      const org = (await owner.agent.get(`/api/v1/organizations/${orgId}`).expect(200)).body;
      expect(org).toMatchObject({ time_zone: 'Europe/Madrid' });
      expect(org.name).not.toBe('Renamed');
    });

    it('is for owners and admins only', async () => {
      const teacher = await adult(t);
      await addMember(t, orgId, teacher.user.id, 'teacher');
      const res = await teacher.agent
        .patch(`/api/v1/organizations/${orgId}`)
        .send({ time_zone: 'Asia/Tokyo' })
        .expect(403);
      expect(res.body.error.code).toBe('forbidden');
    });
  });

  it('the OpenAPI description documents the field on the records and the updates', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body as {
      components: { schemas: Record<string, Schema> };
    };
    for (const name of ['UserDto', 'UpdateProfileDto', 'OrganizationDto', 'UpdateOrganizationDto']) {
      const field = doc.components.schemas[name].properties.time_zone;
      expect({ name, maxLength: field.maxLength, example: field.example }).toEqual({
        name,
        maxLength: 64,
        example: 'Europe/Madrid',
      });
      expect(field.description).toMatch(/IANA time zone/);
    }
    expect(doc.components.schemas.UserDto.properties.time_zone.description).toContain('default `UTC`');
    expect(doc.components.schemas.UpdateProfileDto.properties.time_zone.description).toContain('null not allowed');
  });
});
