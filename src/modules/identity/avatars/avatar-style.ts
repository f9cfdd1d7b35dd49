import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { OptionsDescriptor, Style, type StyleDefinition, type StyleOptions } from '@dicebear/core';
import type { ErrorDetail } from '@/core/http/api-error';
import type { AvatarChoice } from '@/modules/identity/users';

/** The contract's trait names (query and body fields) and the DiceBear component each one picks a variant of. */
export const TRAITS = {
  head: 'head',
  expression: 'expression',
  facial_hair: 'facialHair',
  accessories: 'accessories',
  mask: 'mask',
} as const;
export type Trait = keyof typeof TRAITS;

/** The contract's color fields and the DiceBear color each one sets. */
export const COLORS = {
  skin_color: 'skin',
  hair_color: 'headContrast',
  clothing_color: 'clothing',
} as const;
export type ColorField = keyof typeof COLORS;

/**
 * Named backgrounds (light tints, so every skin and hair color stays readable on them). A name, not a color,
 * is what the API takes, so the palette can be retuned without invalidating saved choices.
 */
export const BACKGROUNDS: readonly { name: string; color: string }[] = [
  { name: 'sky-100', color: '#e0f2fe' },
  { name: 'blue-100', color: '#dbeafe' },
  { name: 'indigo-100', color: '#e0e7ff' },
  { name: 'violet-100', color: '#ede9fe' },
  { name: 'pink-100', color: '#fce7f3' },
  { name: 'rose-100', color: '#ffe4e6' },
  { name: 'orange-100', color: '#ffedd5' },
  { name: 'amber-100', color: '#fef3c7' },
  { name: 'lime-100', color: '#ecfccb' },
  { name: 'emerald-100', color: '#d1fae5' },
  { name: 'teal-100', color: '#ccfbf1' },
  { name: 'slate-100', color: '#f1f5f9' },
];

export const STYLE_NAME = 'open-peeps';

/** What a caller may ask for: every field but the seed may be absent or null (the seed then decides). */
export type AvatarOptionsInput = { seed: string } & Partial<Record<Trait | ColorField | 'background', string | null>>;

export interface AvatarCatalog {
  style: string;
  version: string;
  license: { name: string; url: string; text: string };
  traits: Record<Trait, string[]>;
  colors: { skin: string[]; hair: string[]; clothing: string[] };
  backgrounds: { name: string; color: string }[];
}

/** Reads a package's own package.json next to one of its resolved files (neither package exports it). */
function packageVersion(resolvedFile: string, levelsUp: number): string {
  let dir = dirname(resolvedFile);
  for (let i = 0; i < levelsUp; i++) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

const NOT_OFFERED = 'is not offered by the avatar style (see GET /api/v1/avatars/options)';

/**
 * The Open Peeps style and everything derived from its definition: the catalog, the validation of a choice
 * against it, and the mapping of a choice to DiceBear options. DiceBear renders an unknown variant name
 * silently, so the catalog here is the only gate.
 */
@Injectable()
export class AvatarStyle {
  readonly style: Style<StyleDefinition>;
  readonly catalog: AvatarCatalog;
  private readonly variants: Record<Trait, ReadonlySet<string>>;
  private readonly palettes: Record<ColorField, ReadonlySet<string>>;
  private readonly backgrounds: ReadonlyMap<string, string>;
  /** Optional components (rendered only with some probability) must be forced when a variant is chosen. */
  private readonly optional: ReadonlySet<Trait>;

  constructor() {
    const definitionFile = require.resolve(`@dicebear/styles/${STYLE_NAME}.json`);
    const definition = JSON.parse(readFileSync(definitionFile, 'utf8')) as StyleDefinition;
    this.style = new Style(definition);
    const descriptor = new OptionsDescriptor(this.style).toJSON();

    const traits = {} as Record<Trait, string[]>;
    const optional = new Set<Trait>();
    for (const [trait, component] of Object.entries(TRAITS) as [Trait, string][]) {
      const field = descriptor[`${component}Variant`];
      if (field?.type !== 'enum') throw new Error(`${STYLE_NAME} has no component ${component}`);
      traits[trait] = [...field.values];
      if ((this.style.components().get(component)?.probability() ?? 100) < 100) optional.add(trait);
    }
    const palette = (color: string): string[] => {
      const values = this.style.colors().get(color)?.values();
      if (!values?.length) throw new Error(`${STYLE_NAME} has no color ${color}`);
      return values.map((v) => v.toLowerCase());
    };
    const license = this.style.meta().license();

    this.catalog = {
      style: STYLE_NAME,
      version:
        `@dicebear/styles@${packageVersion(definitionFile, 1)}` +
        `+@dicebear/core@${packageVersion(require.resolve('@dicebear/core'), 1)}`,
      license: { name: license.name() ?? '', url: license.url() ?? '', text: license.text() ?? '' },
      traits,
      colors: {
        skin: palette(COLORS.skin_color),
        hair: palette(COLORS.hair_color),
        clothing: palette(COLORS.clothing_color),
      },
      backgrounds: BACKGROUNDS.map((b) => ({ ...b })),
    };
    this.variants = mapValues(traits, (names) => new Set(names));
    this.palettes = {
      skin_color: new Set(this.catalog.colors.skin),
      hair_color: new Set(this.catalog.colors.hair),
      clothing_color: new Set(this.catalog.colors.clothing),
    };
    this.backgrounds = new Map(BACKGROUNDS.map((b) => [b.name, b.color]));
    this.optional = optional;
  }

  /**
   * The choice in its one normal form (every field present, colors as lowercase `#rrggbb`, fixed key order),
   * or the fields the style does not offer. Formats are the DTOs' business; this checks membership only.
   */
  normalize(input: AvatarOptionsInput): { choice: AvatarChoice } | { errors: ErrorDetail[] } {
    const errors: ErrorDetail[] = [];
    const choice = this.normalForm(input, (field, value) => {
      errors.push({ field, message: `${field} "${value}" ${NOT_OFFERED}` });
    });
    return errors.length ? { errors } : { choice };
  }

  /**
   * A saved choice in normal form. A value the style no longer offers (after an upgrade of the style) is
   * dropped so the seed decides, rather than failing every render of that person's avatar.
   */
  normalizeSaved(saved: AvatarChoice): AvatarChoice {
    return this.normalForm(saved, () => undefined);
  }

  /** The DiceBear options for a normalized choice. */
  toDiceBearOptions(choice: AvatarChoice): StyleOptions {
    const options: Record<string, unknown> = { seed: choice.seed };
    for (const [trait, component] of Object.entries(TRAITS) as [Trait, string][]) {
      const variant = choice[trait];
      if (variant === null) continue;
      options[`${component}Variant`] = variant;
      if (this.optional.has(trait)) options[`${component}Probability`] = 100;
    }
    for (const [field, color] of Object.entries(COLORS) as [ColorField, string][]) {
      const value = choice[field];
      if (value !== null) options[`${color}Color`] = [value];
    }
    // Without a chosen background the seed picks one of the named ones, like every other unset option.
    options.backgroundColor =
      choice.background === null ? BACKGROUNDS.map((b) => b.color) : [this.backgrounds.get(choice.background)];
    return options;
  }

  private normalForm(input: AvatarOptionsInput, reject: (field: string, value: string) => void): AvatarChoice {
    const pick = (field: string, value: string | null | undefined, offered: (v: string) => boolean): string | null => {
      if (value === undefined || value === null) return null;
      if (offered(value)) return value;
      reject(field, value);
      return null;
    };
    const trait = (t: Trait): string | null => pick(t, input[t], (v) => this.variants[t].has(v));
    const color = (c: ColorField): string | null =>
      pick(c, input[c] === undefined || input[c] === null ? null : normalizeColor(input[c]), (v) =>
        this.palettes[c].has(v),
      );
    return {
      seed: input.seed,
      head: trait('head'),
      expression: trait('expression'),
      facial_hair: trait('facial_hair'),
      accessories: trait('accessories'),
      mask: trait('mask'),
      skin_color: color('skin_color'),
      hair_color: color('hair_color'),
      clothing_color: color('clothing_color'),
      background: pick('background', input.background, (v) => this.backgrounds.has(v)),
    };
  }
}

/** `AE5D29` or `#ae5d29` → `#ae5d29` (the format itself is checked by the DTOs). */
export function normalizeColor(value: string): string {
  return `#${value.replace(/^#/, '').toLowerCase()}`;
}

function mapValues<K extends string, A, B>(record: Record<K, A>, fn: (a: A) => B): Record<K, B> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v as A)])) as Record<K, B>;
}
