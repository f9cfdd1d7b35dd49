import { createHash, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { UsersRepository } from '@/modules/identity/users/testing';
import { signIn, type SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const SVG_TYPE = 'image/svg+xml; charset=utf-8';
const CACHE = 'private, max-age=600';
const STRONG_ETAG = /^"[A-Za-z0-9_-]{43}"$/;
const NOT_OFFERED = 'is not offered by the avatar style';
const SEED = 'seed_Abc-123';

/** Keeps an SVG answer's exact bytes as a Buffer body; an error envelope is still parsed as JSON. */
function svgOf(req: ReturnType<TestAgent['get']>): ReturnType<TestAgent['get']> {
  return req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const json = /^application\/json/.test(String(res.headers['content-type']));
      done(null, json ? JSON.parse(bytes.toString('utf8')) : bytes);
    });
  });
}

const query = (params: Record<string, string>): string => new URLSearchParams(params).toString();

function expectSvg(res: Response): string {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe(SVG_TYPE);
  expect(res.headers['cache-control']).toBe(CACHE);
  expect(res.headers.etag).toMatch(STRONG_ETAG);
  const body = res.body as Buffer;
  expect(res.headers.etag).toBe(`"${createHash('sha256').update(body).digest('base64url')}"`);
  return body.toString('utf8');
}

/** A 422 `validation_error` whose details name exactly these fields. */
function expectValidation(res: Response, fields: string[]): { field: string; message: string }[] {
  expect(res.status).toBe(422);
  expect(res.body.error).toMatchObject({ code: 'validation_error', request_id: res.headers['x-request-id'] });
  const details = res.body.error.details as { field: string; message: string }[];
  expect([...new Set(details.map((d) => d.field))]).toEqual(fields);
  return details;
}

/** Checks a 422 that is about the format of the value, not about the style's catalog. */
function expectFormatError(res: Response, field: string): void {
  for (const d of expectValidation(res, [field])) expect(d.message).not.toContain(NOT_OFFERED);
}

/** Checks a 422 about a well-formed value the style does not offer. */
function expectNotOffered(res: Response, field: string): void {
  const details = expectValidation(res, [field]);
  expect(details).toEqual([{ field, message: expect.stringContaining(NOT_OFFERED) }]);
}

/** The option rows shared by the preview (query) and the saved choice (body): [what, options, expectation]. */
const INVALID_ROWS: [string, Record<string, string>, 'format' | 'not_offered', string][] = [
  ['a seed of 7 characters', { seed: 'abcdefg' }, 'format', 'seed'],
  ['a seed of 65 characters', { seed: 'a'.repeat(65) }, 'format', 'seed'],
  ['a seed with a space', { seed: 'abc defgh' }, 'format', 'seed'],
  ['a seed with a dot', { seed: 'abcdefgh.' }, 'format', 'seed'],
  ['a variant of 33 characters', { seed: SEED, head: 'a' + 'b'.repeat(32) }, 'format', 'head'],
  ['a variant starting in upper case', { seed: SEED, expression: 'Smile' }, 'format', 'expression'],
  ['a variant with a dash', { seed: SEED, mask: 'medical-mask' }, 'format', 'mask'],
  ['a background of 25 characters', { seed: SEED, background: 'abcdefghijklmnopqrstu-100' }, 'format', 'background'],
  ['a background without a dash', { seed: SEED, background: 'sky100' }, 'format', 'background'],
  ['a background with 4 digits', { seed: SEED, background: 'sky-1000' }, 'format', 'background'],
  ['a color of 5 digits', { seed: SEED, skin_color: '#ae5d2' }, 'format', 'skin_color'],
  ['a color that is not hex', { seed: SEED, hair_color: '#zzzzzz' }, 'format', 'hair_color'],
  ['a color with alpha', { seed: SEED, clothing_color: '#8fa7dfff' }, 'format', 'clothing_color'],
  // Within the format limits, but outside what Open Peeps offers.
  ['a variant of exactly 32 characters', { seed: SEED, head: 'a' + 'b'.repeat(31) }, 'not_offered', 'head'],
  ['an unknown head', { seed: SEED, head: 'spaceHelmet' }, 'not_offered', 'head'],
  ['a variant of another trait', { seed: SEED, mask: 'glasses' }, 'not_offered', 'mask'],
  ['a skin color outside the palette', { seed: SEED, skin_color: '#123456' }, 'not_offered', 'skin_color'],
  ['a clothing color used as hair color', { seed: SEED, hair_color: '#8fa7df' }, 'not_offered', 'hair_color'],
  ['an unknown background', { seed: SEED, background: 'sky-900' }, 'not_offered', 'background'],
  [
    'a background of exactly 24 characters',
    { seed: SEED, background: 'abcdefghijklmnopqrs-100' },
    'not_offered',
    'background',
  ],
];

describe('Avatars', () => {
  let t: TestApp;
  let ana: SignedIn;
  let ben: SignedIn;

  beforeAll(async () => {
    t = await createTestApp();
    ana = await signIn(t);
    ben = await signIn(t);
  });
  afterAll(() => t.close());

  const preview = (who: SignedIn, params: Record<string, string>): ReturnType<TestAgent['get']> =>
    svgOf(who.agent.get(`/api/v1/avatars/preview.svg?${query(params)}`));
  const avatarOf = (who: SignedIn, userId: string, suffix = ''): ReturnType<TestAgent['get']> =>
    svgOf(who.agent.get(`/api/v1/users/${userId}/avatar.svg${suffix}`));
  const me = async (who: SignedIn): Promise<{ id: string; avatar_svg_url: string }> =>
    (await who.agent.get('/api/v1/auth/me').expect(200)).body;

  describe('GET /api/v1/avatars/options', () => {
    it('answers the Open Peeps catalog with version and license', async () => {
      const res = await ana.agent.get('/api/v1/avatars/options').expect(200);
      const body = res.body;
      expect(Object.keys(body).sort()).toEqual(['backgrounds', 'colors', 'license', 'style', 'traits', 'version']);
      expect(body.style).toBe('open-peeps');
      expect(body.version).toMatch(/^@dicebear\/styles@10\.\d+\.\d+\+@dicebear\/core@10\.\d+\.\d+$/);
      expect(body.license).toEqual({
        name: 'CC0 1.0',
        url: 'https://creativecommons.org/publicdomain/zero/1.0/',
        text: expect.stringContaining('Pablo Stanley'),
      });
      expect(Object.keys(body.traits).sort()).toEqual(['accessories', 'expression', 'facial_hair', 'head', 'mask']);
      for (const names of Object.values<string[]>(body.traits)) {
        expect(names.length).toBeGreaterThan(0);
        for (const n of names) {
          expect(n).toMatch(/^[a-z][A-Za-z0-9]*$/);
          expect(n.length).toBeLessThanOrEqual(32);
        }
      }
      expect(body.traits.head).toContain('afro');
      expect(Object.keys(body.colors).sort()).toEqual(['clothing', 'hair', 'skin']);
      for (const colors of Object.values<string[]>(body.colors)) {
        expect(colors.length).toBeGreaterThan(0);
        for (const c of colors) expect(c).toMatch(/^#[0-9a-f]{6}$/);
      }
      expect(body.backgrounds.length).toBeGreaterThanOrEqual(10);
      expect(body.backgrounds).toContainEqual({ name: 'sky-100', color: '#e0f2fe' });
      for (const b of body.backgrounds) {
        expect(Object.keys(b).sort()).toEqual(['color', 'name']);
        expect(b.name).toMatch(/^[a-z]+-[0-9]{2,3}$/);
        expect(b.name.length).toBeLessThanOrEqual(24);
        expect(b.color).toMatch(/^#[0-9a-f]{6}$/);
      }
    });

    it('is 401 without a credential', async () => {
      const res = await t.client().get('/api/v1/avatars/options').expect(401);
      expect(res.body.error.code).toBe('unauthorized');
    });
  });

  describe('GET /api/v1/avatars/preview.svg', () => {
    it('answers sanitized SVG with a strong ETag and a private cache of 600 s', async () => {
      const svg = expectSvg(await preview(ana, { seed: SEED }));
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(svg).not.toMatch(/<script/i);
      expect(svg).not.toMatch(/\son[a-z]+\s*=/i);
      expect(svg).not.toMatch(/<metadata|<image|<foreignObject/i);
      const hrefs = [...svg.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
      expect(hrefs.length).toBeGreaterThan(0); // the parts are placed with <use href="#...">
      for (const href of hrefs) expect(href).toMatch(/^#/);
    });

    it('is deterministic: the same options give the same bytes; another seed another ETag', async () => {
      const a = await preview(ana, { seed: SEED, head: 'afro' });
      const b = await preview(ben, { seed: SEED, head: 'afro' });
      expectSvg(a);
      expectSvg(b);
      expect((a.body as Buffer).equals(b.body as Buffer)).toBe(true);
      expect(b.headers.etag).toBe(a.headers.etag);
      const other = await preview(ana, { seed: `${SEED}x`, head: 'afro' });
      expectSvg(other);
      expect(other.headers.etag).not.toBe(a.headers.etag);
    });

    it('is 304 without a body for a matching If-None-Match, 200 for another one', async () => {
      const first = await preview(ana, { seed: SEED });
      const etag = first.headers.etag;
      const again = await preview(ana, { seed: SEED }).set('If-None-Match', etag);
      expect(again.status).toBe(304);
      expect((again.body as Buffer).length).toBe(0);
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['cache-control']).toBe(CACHE);
      // A list and the weak form also match (If-None-Match uses the weak comparison).
      expect((await preview(ana, { seed: SEED }).set('If-None-Match', `"nope", W/${etag}`)).status).toBe(304);
      const changed = await preview(ana, { seed: SEED }).set('If-None-Match', '"something-else"');
      expectSvg(changed);
      expect((changed.body as Buffer).equals(first.body as Buffer)).toBe(true);
    });

    it('reflects each option: a chosen part is drawn, and colors in any case mean the same', async () => {
      const masked = expectSvg(await preview(ana, { seed: SEED, mask: 'respirator', accessories: 'glasses' }));
      expect(masked).toMatch(/href="#mask-respirator-/);
      expect(masked).toMatch(/href="#accessories-glasses-/);
      const lower = await preview(ana, { seed: SEED, skin_color: '#ae5d29', background: 'sky-100' });
      const upper = await preview(ana, { seed: SEED, skin_color: 'AE5D29', background: 'sky-100' });
      expect(expectSvg(lower)).toContain('fill="#ae5d29"');
      expect(expectSvg(lower)).toContain('#e0f2fe');
      expect(upper.headers.etag).toBe(lower.headers.etag);
      // An empty value is no choice: the seed decides, as when the field is left out.
      const empty = await preview(ana, { seed: SEED, head: '', skin_color: '' });
      expect(empty.headers.etag).toBe((await preview(ana, { seed: SEED })).headers.etag);
    });

    it('accepts a seed of exactly 8 and of exactly 64 characters', async () => {
      expectSvg(await preview(ana, { seed: 'abcdefgh' }));
      expectSvg(await preview(ana, { seed: 'a'.repeat(64) }));
    });

    it('accepts every variant and color of the catalog', async () => {
      const catalog = (await ana.agent.get('/api/v1/avatars/options').expect(200)).body;
      expectSvg(
        await preview(ana, {
          seed: SEED,
          head: catalog.traits.head.at(-1),
          expression: catalog.traits.expression.at(-1),
          facial_hair: catalog.traits.facial_hair.at(-1),
          accessories: catalog.traits.accessories.at(-1),
          mask: catalog.traits.mask.at(-1),
          skin_color: catalog.colors.skin.at(-1),
          hair_color: catalog.colors.hair.at(-1),
          clothing_color: catalog.colors.clothing.at(-1),
          background: catalog.backgrounds.at(-1).name,
        }),
      );
    });

    it.each(INVALID_ROWS)('is 422 for %s', async (_what, params, kind, field) => {
      const res = await preview(ana, params);
      if (kind === 'format') expectFormatError(res, field);
      else expectNotOffered(res, field);
    });

    it('is 422 without a seed, and for an unknown parameter', async () => {
      expectFormatError(await preview(ana, { head: 'afro' }), 'seed');
      expectValidation(await preview(ana, { seed: SEED, hat: 'top' }), ['hat']);
    });

    it('names every option the style lacks in one answer', async () => {
      const res = await preview(ana, { seed: SEED, head: 'spaceHelmet', skin_color: '#123456', background: 'sky-900' });
      expect(expectValidation(res, ['head', 'skin_color', 'background']).length).toBe(3);
    });

    it('is 401 without a credential', async () => {
      const res = await svgOf(t.client().get(`/api/v1/avatars/preview.svg?seed=${SEED}`));
      expect(res.status).toBe(401);
    });

    it('saves nothing', async () => {
      const before = await me(ana);
      await preview(ana, { seed: 'never_saved', head: 'afro' }).expect(200);
      expect((await me(ana)).avatar_svg_url).toBe(before.avatar_svg_url);
    });
  });

  describe('GET /api/v1/users/{id}/avatar.svg', () => {
    it("answers the person's own avatar: the one seeded by their id when they never chose", async () => {
      const res = await avatarOf(ben, ben.user.id);
      expectSvg(res);
      const seeded = await preview(ben, { seed: ben.user.id });
      expect(res.headers.etag).toBe(seeded.headers.etag);
    });

    it('takes the cache-busting v of avatar_svg_url, up to 32 characters', async () => {
      const { avatar_svg_url } = await me(ben);
      const url = new URL(avatar_svg_url);
      expect(url.pathname).toBe(`/api/v1/users/${ben.user.id}/avatar.svg`);
      expectSvg(await svgOf(ben.agent.get(`${url.pathname}${url.search}`)));
      expectSvg(await avatarOf(ben, ben.user.id, `?v=${'x'.repeat(32)}`));
      expectValidation(await avatarOf(ben, ben.user.id, `?v=${'x'.repeat(33)}`), ['v']);
    });

    it('is 304 for a matching If-None-Match, 200 for another one', async () => {
      const first = await avatarOf(ben, ben.user.id);
      const again = await avatarOf(ben, ben.user.id).set('If-None-Match', first.headers.etag);
      expect(again.status).toBe(304);
      expect((again.body as Buffer).length).toBe(0);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(again.headers['cache-control']).toBe(CACHE);
      expectSvg(await avatarOf(ben, ben.user.id).set('If-None-Match', '"stale"'));
    });

    it('is 404 to another person who shares no organization, either way', async () => {
      for (const [viewer, owner] of [
        [ana, ben],
        [ben, ana],
      ]) {
        const res = await viewer.agent.get(`/api/v1/users/${owner.user.id}/avatar.svg`).expect(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });

    it('is 404 for an unknown id and for an id that is not a UUID', async () => {
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const res = await ana.agent.get(`/api/v1/users/${id}/avatar.svg`).expect(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });

    it('is the generated avatar even when the person has a photo', async () => {
      const before = await avatarOf(ben, ben.user.id);
      await ben.agent.patch('/api/v1/me/profile').send({ avatar_url: 'https://img.example.test/ben.png' }).expect(200);
      const after = await avatarOf(ben, ben.user.id);
      expectSvg(after);
      expect(after.headers.etag).toBe(before.headers.etag);
    });

    it('is 401 without a credential', async () => {
      const res = await t.client().get(`/api/v1/users/${ana.user.id}/avatar.svg`).expect(401);
      expect(res.body.error.code).toBe('unauthorized');
    });
  });

  describe('GET /api/v1/users/{id}/avatar.svg within an organization', () => {
    it("colleagues of the request's organization see each other; others, and other organizations' tokens, get 404", async () => {
      const owner = await adult(t);
      const org = await createOrganization(t, owner, 'Avatar Org');
      const colleague = await adult(t);
      await addMember(t, org, colleague.user.id, 'student');
      const outsider = await adult(t);
      await createOrganization(t, outsider, 'Elsewhere');
      // The owner's active organization is the new one; the colleague has none active yet.
      await owner.agent.get(`/api/v1/users/${colleague.user.id}/avatar.svg`).expect(200);
      await colleague.agent.get(`/api/v1/users/${owner.user.id}/avatar.svg`).expect(404);
      await colleague.agent.put('/api/v1/me/active-organization').send({ organization_id: org }).expect(200);
      await colleague.agent.get(`/api/v1/users/${owner.user.id}/avatar.svg`).expect(200);
      await outsider.agent.get(`/api/v1/users/${owner.user.id}/avatar.svg`).expect(404);
      // A token acts in its own organization: the outsider's token sees nobody here.
      const token = await personalToken(
        t,
        outsider,
        (await outsider.agent.get('/api/v1/me/organizations').expect(200)).body.active_organization_id,
        'read',
      );
      await bearer(t, token).get(`/api/v1/users/${owner.user.id}/avatar.svg`).expect(404);
      const colleagueToken = await personalToken(t, colleague, org, 'read');
      await bearer(t, colleagueToken).get(`/api/v1/users/${owner.user.id}/avatar.svg`).expect(200);
    });
  });

  describe('PUT /api/v1/me/avatar', () => {
    it('saves the choice; the account and the avatar follow it', async () => {
      const carla = await signIn(t);
      const before = await me(carla);
      const avatarBefore = await avatarOf(carla, carla.user.id);
      const choice = {
        seed: 'carla_2026',
        head: 'afro',
        expression: 'smile',
        facial_hair: null,
        accessories: 'glasses',
        skin_color: 'AE5D29',
        hair_color: '#2C1B18',
        background: 'teal-100',
      };
      const res = await carla.agent.put('/api/v1/me/avatar').send(choice).expect(200);
      expect(res.body).toEqual({
        avatar: {
          seed: 'carla_2026',
          head: 'afro',
          expression: 'smile',
          facial_hair: null,
          accessories: 'glasses',
          mask: null,
          skin_color: '#ae5d29',
          hair_color: '#2c1b18',
          clothing_color: null,
          background: 'teal-100',
        },
        avatar_svg_url: expect.stringMatching(
          new RegExp(`^${t.baseUrl}/api/v1/users/${carla.user.id}/avatar\\.svg\\?v=[0-9a-f]{12}$`),
        ),
      });

      // The account's address changed with the choice and is the one the save answered.
      const after = await me(carla);
      expect(after.avatar_svg_url).not.toBe(before.avatar_svg_url);
      expect(after.avatar_svg_url).toBe(res.body.avatar_svg_url);

      // The avatar is now the saved choice: the same bytes as its preview, not the seeded one of before.
      const url = new URL(res.body.avatar_svg_url as string);
      const avatar = await svgOf(carla.agent.get(`${url.pathname}${url.search}`));
      expectSvg(avatar);
      expect(avatar.headers.etag).not.toBe(avatarBefore.headers.etag);
      const { facial_hair: _unset, ...params } = choice;
      const same = await preview(carla, params);
      expect(avatar.headers.etag).toBe(same.headers.etag);
      expect((avatar.body as Buffer).equals(same.body as Buffer)).toBe(true);
      expect(avatarBefore.headers.etag).toBe((await preview(carla, { seed: carla.user.id })).headers.etag);
    });

    it('replaces the whole choice: fields left out go back to the seed', async () => {
      const dana = await signIn(t);
      await dana.agent
        .put('/api/v1/me/avatar')
        .send({ seed: 'dana_2026', head: 'bun', mask: 'medicalMask' })
        .expect(200);
      const res = await dana.agent.put('/api/v1/me/avatar').send({ seed: 'dana_2026' }).expect(200);
      expect(res.body.avatar).toEqual({
        seed: 'dana_2026',
        head: null,
        expression: null,
        facial_hair: null,
        accessories: null,
        mask: null,
        skin_color: null,
        hair_color: null,
        clothing_color: null,
        background: null,
      });
      const avatar = await avatarOf(dana, dana.user.id);
      expect(avatar.headers.etag).toBe((await preview(dana, { seed: 'dana_2026' })).headers.etag);
    });

    it.each(INVALID_ROWS)('is 422 for %s, and saves nothing', async (_what, body, kind, field) => {
      const before = await me(ana);
      const res = await ana.agent.put('/api/v1/me/avatar').send(body);
      if (kind === 'format') expectFormatError(res, field);
      else expectNotOffered(res, field);
      expect((await me(ana)).avatar_svg_url).toBe(before.avatar_svg_url);
    });

    it('is 422 without a seed, for a value that is not a string, and for an unknown field', async () => {
      expectFormatError(await ana.agent.put('/api/v1/me/avatar').send({ head: 'afro' }), 'seed');
      expectFormatError(await ana.agent.put('/api/v1/me/avatar').send({ seed: SEED, head: 7 }), 'head');
      expectFormatError(await ana.agent.put('/api/v1/me/avatar').send({ seed: SEED, head: '' }), 'head');
      expectValidation(await ana.agent.put('/api/v1/me/avatar').send({ seed: SEED, hat: 'top' }), ['hat']);
    });

    it('is 401 without a credential', async () => {
      const res = await t.client().put('/api/v1/me/avatar').send({ seed: SEED }).expect(401);
      expect(res.body.error.code).toBe('unauthorized');
    });

    it('is 403 credential_read_only for a read-only token, which may still read avatars', async () => {
      const owner = await adult(t);
      const orgId = await createOrganization(t, owner);
      const reader = bearer(t, await personalToken(t, owner, orgId, 'read'));
      const res = await reader.put('/api/v1/me/avatar').send({ seed: SEED }).expect(403);
      expect(res.body.error.code).toBe('credential_read_only');
      expectSvg(await avatarOf({ ...owner, agent: reader }, owner.user.id));
    });

    it('is open to a minor’s read-only session (minors: always, extensions-v2 17.6)', async () => {
      const minor = await signIn(t);
      // A session of an underage learner is read-only; nothing in the API sets the bracket yet.
      await t.app.get(UsersRepository).update(minor.user.id, { ageBracket: 'under_18' }, t.clock.now());
      await minor.agent.put('/api/v1/me/avatar').send({ seed: SEED }).expect(200);
      expectSvg(await avatarOf(minor, minor.user.id));
      expectSvg(await preview(minor, { seed: SEED }));
    });
  });
});
