import type { TenancyResolver } from '@/core/auth/tenancy';
import { createHash } from 'node:crypto';
import type { Credential } from '@/core/auth/credential';
import { ApiError } from '@/core/http/api-error';
import type { AvatarChoice, User, UsersService } from '@/modules/identity/users';
import { AvatarSanitizer } from './avatar-sanitizer';
import { AvatarStyle } from './avatar-style';
import { AvatarVisibility } from './avatar-visibility';
import { AvatarsService } from './avatars.service';

const ME = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';

function credential(userId: string): Credential {
  return {
    kind: 'session',
    userId,
    sessionId: 's',
    tokenId: null,
    organizationId: null,
    access: 'write',
    impersonatorId: null,
    platformRoles: [],
    minor: false,
  };
}

describe('AvatarsService', () => {
  const style = new AvatarStyle();
  const sanitizer = new AvatarSanitizer();
  afterAll(() => sanitizer.onModuleDestroy());

  let users: { findById: jest.Mock; saveAvatar: jest.Mock; getById: jest.Mock; toDto: jest.Mock };
  let visibility: AvatarVisibility;
  let service: AvatarsService;
  let sanitize: jest.SpyInstance;

  beforeEach(() => {
    users = { findById: jest.fn(), saveAvatar: jest.fn(), getById: jest.fn(), toDto: jest.fn() };
    visibility = new AvatarVisibility(
      { membership: jest.fn(), isSuspended: jest.fn() },
      users as unknown as UsersService,
    );
    sanitize = jest.spyOn(sanitizer, 'sanitize');
    service = new AvatarsService(style, sanitizer, visibility, users as unknown as UsersService);
  });
  afterEach(() => sanitize.mockRestore());

  describe('preview', () => {
    it('is deterministic, with a strong ETag that is the SHA-256 of the exact bytes', () => {
      const a = service.preview({ seed: 'abcdefgh', head: 'afro' });
      const b = new AvatarsService(style, sanitizer, visibility, users as unknown as UsersService).preview({
        seed: 'abcdefgh',
        head: 'afro',
      });
      expect(a.svg.equals(b.svg)).toBe(true);
      expect(a.etag).toBe(`"${createHash('sha256').update(a.svg).digest('base64url')}"`);
      expect(service.preview({ seed: 'abcdefgi', head: 'afro' }).etag).not.toBe(a.etag);
    });

    it('renders and sanitizes a choice once, then answers it from memory', () => {
      service.preview({ seed: 'abcdefgh', skin_color: 'AE5D29' });
      // The same choice written differently is the same normalized choice.
      service.preview({ seed: 'abcdefgh', skin_color: '#ae5d29', head: null });
      expect(sanitize).toHaveBeenCalledTimes(1);
    });

    it('serves sanitized SVG with only internal references, and draws the optional parts chosen', () => {
      const svg = service
        .preview({ seed: 'abcdefgh', mask: 'respirator', accessories: 'glasses', facial_hair: 'full' })
        .svg.toString('utf8');
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(svg).not.toMatch(/<script|<metadata|<image|<foreignObject|\son[a-z]+=/i);
      const hrefs = [...svg.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
      expect(hrefs.length).toBeGreaterThan(0);
      for (const href of hrefs) expect(href.startsWith('#')).toBe(true);
      expect(svg).toMatch(/href="#mask-respirator-/);
      expect(svg).toMatch(/href="#accessories-glasses-/);
      expect(svg).toMatch(/href="#facialHair-full-/);
    });

    it('is 422 validation_error naming each option the style lacks', () => {
      expect.assertions(3);
      try {
        service.preview({ seed: 'abcdefgh', head: 'nope', background: 'sky-900' });
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).status).toBe(422);
        expect((err as ApiError).details?.map((d) => d.field)).toEqual(['head', 'background']);
      }
    });
  });

  describe('forUser', () => {
    const user = (avatar: AvatarChoice | null): Partial<User> => ({ id: ME, avatar });

    it("renders a person's saved choice, the same bytes as its preview", async () => {
      const saved = style.normalize({ seed: 'abcdefgh', head: 'afro' });
      if (!('choice' in saved)) throw new Error('expected a valid choice');
      users.findById.mockResolvedValue(user(saved.choice));
      const avatar = await service.forUser(credential(ME), ME);
      expect(avatar.etag).toBe(service.preview({ seed: 'abcdefgh', head: 'afro' }).etag);
    });

    it('seeds everything with the id of someone who never chose', async () => {
      users.findById.mockResolvedValue(user(null));
      expect((await service.forUser(credential(ME), ME)).etag).toBe(service.preview({ seed: ME }).etag);
    });

    it('is 404 for someone the viewer may not see, without looking them up', async () => {
      await expect(service.forUser(credential(ME), OTHER)).rejects.toMatchObject({ status: 404, code: 'not_found' });
      expect(users.findById).not.toHaveBeenCalledWith(OTHER);
    });

    it('is 404 for an unknown person', async () => {
      users.findById.mockResolvedValue(null);
      await expect(service.forUser(credential(ME), ME)).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('save', () => {
    it('saves the normalized choice and answers it with the account avatar address', async () => {
      users.getById.mockResolvedValue({ id: ME });
      users.toDto.mockReturnValue({ avatar_svg_url: 'http://x/api/v1/users/me/avatar.svg?v=abc' });
      const result = await service.save(ME, { seed: 'abcdefgh', hair_color: '#2C1B18' });
      const expected = style.normalize({ seed: 'abcdefgh', hair_color: '#2c1b18' });
      expect('choice' in expected && users.saveAvatar).toHaveBeenCalledWith(
        ME,
        'choice' in expected && expected.choice,
      );
      expect(result).toEqual({
        avatar: 'choice' in expected && expected.choice,
        avatar_svg_url: 'http://x/api/v1/users/me/avatar.svg?v=abc',
      });
    });

    it('saves nothing when an option is not offered', async () => {
      await expect(service.save(ME, { seed: 'abcdefgh', mask: 'helmet' })).rejects.toMatchObject({ status: 422 });
      expect(users.saveAvatar).not.toHaveBeenCalled();
    });
  });
});

describe('AvatarVisibility', () => {
  const ORG = '33333333-3333-4333-8333-333333333333';
  function build(members: string[], options: { active?: string | null; suspended?: boolean } = {}) {
    const tenancy = {
      membership: jest.fn((org: string, user: string) =>
        Promise.resolve(
          org === ORG && members.includes(user) ? { organizationId: org, userId: user, role: 'student' } : null,
        ),
      ),
      isSuspended: jest.fn(() => Promise.resolve(options.suspended ?? false)),
    };
    const users = {
      findById: jest.fn(() =>
        Promise.resolve({ lastOrganizationId: options.active === undefined ? ORG : options.active }),
      ),
    };
    return new AvatarVisibility(tenancy as unknown as TenancyResolver, users as unknown as UsersService);
  }

  it('lets the person see their own avatar', async () => {
    expect(await build([]).canSee(credential(ME), ME)).toBe(true);
  });

  it('lets a member of the request organization see a fellow member', async () => {
    expect(await build([ME, OTHER]).canSee(credential(ME), OTHER)).toBe(true);
  });

  it('refuses when the person is not in the request organization, there is none, or it is suspended', async () => {
    expect(await build([ME]).canSee(credential(ME), OTHER)).toBe(false);
    expect(await build([OTHER]).canSee(credential(ME), OTHER)).toBe(false);
    expect(await build([ME, OTHER], { active: null }).canSee(credential(ME), OTHER)).toBe(false);
    expect(await build([ME, OTHER], { suspended: true }).canSee(credential(ME), OTHER)).toBe(false);
  });

  it("uses a token's own organization rather than the active one", async () => {
    const token = {
      ...credential(ME),
      kind: 'personal_token' as const,
      organizationId: '44444444-4444-4444-8444-444444444444',
    };
    expect(await build([ME, OTHER]).canSee(token, OTHER)).toBe(false);
  });
});
