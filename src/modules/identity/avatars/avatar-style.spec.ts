import type { AvatarChoice } from '@/modules/identity/users';
import { AvatarStyle, BACKGROUNDS, normalizeColor } from './avatar-style';

const NONE: Omit<AvatarChoice, 'seed'> = {
  head: null,
  expression: null,
  facial_hair: null,
  accessories: null,
  mask: null,
  skin_color: null,
  hair_color: null,
  clothing_color: null,
  background: null,
};

describe('AvatarStyle (Open Peeps)', () => {
  const style = new AvatarStyle();

  describe('catalog', () => {
    it('lists the traits, palettes and backgrounds of the style with version and license', () => {
      const c = style.catalog;
      expect(c.style).toBe('open-peeps');
      expect(c.version).toMatch(/^@dicebear\/styles@\d+\.\d+\.\d+\+@dicebear\/core@\d+\.\d+\.\d+$/);
      expect(c.license).toEqual({
        name: 'CC0 1.0',
        url: 'https://creativecommons.org/publicdomain/zero/1.0/',
        text: expect.stringContaining('Open Peeps'),
      });
      expect(c.traits.head).toContain('afro');
      expect(c.traits.expression).toContain('smile');
      expect(c.traits.facial_hair).toContain('full');
      expect(c.traits.accessories).toContain('glasses');
      expect(c.traits.mask).toEqual(['medicalMask', 'respirator']);
      for (const palette of [c.colors.skin, c.colors.hair, c.colors.clothing]) {
        expect(palette.length).toBeGreaterThan(0);
        for (const color of palette) expect(color).toMatch(/^#[0-9a-f]{6}$/);
      }
      expect(c.colors.skin).toContain('#ae5d29');
    });

    it('names every background within the contract pattern and length, each once', () => {
      expect(BACKGROUNDS.length).toBeGreaterThanOrEqual(10);
      for (const b of BACKGROUNDS) {
        expect(b.name).toMatch(/^[a-z]+-[0-9]{2,3}$/);
        expect(b.name.length).toBeLessThanOrEqual(24);
        expect(b.color).toMatch(/^#[0-9a-f]{6}$/);
      }
      expect(new Set(BACKGROUNDS.map((b) => b.name)).size).toBe(BACKGROUNDS.length);
      expect(style.catalog.backgrounds).toEqual(BACKGROUNDS);
    });
  });

  describe('normalize', () => {
    it('fills every absent field with null, in a fixed order', () => {
      const result = style.normalize({ seed: 'abcdefgh' });
      expect(result).toEqual({ choice: { seed: 'abcdefgh', ...NONE } });
      expect('choice' in result && Object.keys(result.choice)).toEqual([
        'seed',
        'head',
        'expression',
        'facial_hair',
        'accessories',
        'mask',
        'skin_color',
        'hair_color',
        'clothing_color',
        'background',
      ]);
    });

    it('keeps offered values and writes colors as lowercase #rrggbb', () => {
      const result = style.normalize({
        seed: 'abcdefgh',
        head: 'afro',
        expression: 'smile',
        facial_hair: 'full',
        accessories: 'glasses',
        mask: null,
        skin_color: 'AE5D29',
        hair_color: '#2C1B18',
        clothing_color: '#8fa7df',
        background: 'sky-100',
      });
      expect(result).toEqual({
        choice: {
          seed: 'abcdefgh',
          head: 'afro',
          expression: 'smile',
          facial_hair: 'full',
          accessories: 'glasses',
          mask: null,
          skin_color: '#ae5d29',
          hair_color: '#2c1b18',
          clothing_color: '#8fa7df',
          background: 'sky-100',
        },
      });
    });

    it('reports every value the style does not offer, by field', () => {
      const result = style.normalize({
        seed: 'abcdefgh',
        head: 'spaceHelmet',
        mask: 'glasses', // a variant of another trait
        skin_color: '#123456',
        hair_color: '#8fa7df', // a clothing color, not a hair color
        background: 'sky-900',
      });
      expect('errors' in result && result.errors.map((e) => e.field)).toEqual([
        'head',
        'mask',
        'skin_color',
        'hair_color',
        'background',
      ]);
      expect('errors' in result && result.errors[0].message).toBe(
        'head "spaceHelmet" is not offered by the avatar style (see GET /api/v1/avatars/options)',
      );
    });

    it('drops values of a saved choice the style no longer offers, so the seed decides', () => {
      expect(style.normalizeSaved({ ...NONE, seed: 'abcdefgh', head: 'retiredHead', expression: 'smile' })).toEqual({
        ...NONE,
        seed: 'abcdefgh',
        expression: 'smile',
      });
    });
  });

  describe('toDiceBearOptions', () => {
    it('passes only the seed and the background palette when nothing is chosen', () => {
      expect(style.toDiceBearOptions({ seed: 'abcdefgh', ...NONE })).toEqual({
        seed: 'abcdefgh',
        backgroundColor: BACKGROUNDS.map((b) => b.color),
      });
    });

    it('maps each field to its DiceBear option and forces the optional components that are chosen', () => {
      expect(
        style.toDiceBearOptions({
          seed: 'abcdefgh',
          head: 'afro',
          expression: 'smile',
          facial_hair: 'full',
          accessories: 'glasses',
          mask: 'respirator',
          skin_color: '#ae5d29',
          hair_color: '#2c1b18',
          clothing_color: '#8fa7df',
          background: 'sky-100',
        }),
      ).toEqual({
        seed: 'abcdefgh',
        headVariant: 'afro',
        expressionVariant: 'smile',
        facialHairVariant: 'full',
        facialHairProbability: 100,
        accessoriesVariant: 'glasses',
        accessoriesProbability: 100,
        maskVariant: 'respirator',
        maskProbability: 100,
        skinColor: ['#ae5d29'],
        headContrastColor: ['#2c1b18'],
        clothingColor: ['#8fa7df'],
        backgroundColor: ['#e0f2fe'],
      });
    });
  });

  it('normalizeColor accepts either case, with or without "#"', () => {
    expect(normalizeColor('AbCdEf')).toBe('#abcdef');
    expect(normalizeColor('#ABCDEF')).toBe('#abcdef');
  });
});
