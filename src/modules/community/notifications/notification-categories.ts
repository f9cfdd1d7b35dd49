/**
 * The categories of extensions-v2 13.1 and their defaults. The five email categories are the values of the
 * unsubscribe `type` (interface-v1 section 6); the other five never send email (`email` is null for them).
 */
export const EMAIL_CATEGORIES = [
  'course_complete',
  'badge_earned',
  'streak_reminder',
  'weekly_summary',
  'new_course',
] as const;
export const APP_ONLY_CATEGORIES = ['duels', 'social', 'exams', 'support', 'reports'] as const;
export const CATEGORIES = [...EMAIL_CATEGORIES, ...APP_ONLY_CATEGORIES] as const;

export type EmailCategory = (typeof EMAIL_CATEGORIES)[number];
export type Category = (typeof CATEGORIES)[number];
export type Channel = 'in_app' | 'push' | 'email';

export interface ChannelPreference {
  in_app: boolean;
  push: boolean;
  /** Null for the app-only categories. */
  email: boolean | null;
}

export const DEFAULT_PREFERENCES: Readonly<Record<Category, Readonly<ChannelPreference>>> = {
  course_complete: { in_app: true, push: true, email: true },
  badge_earned: { in_app: true, push: true, email: false },
  streak_reminder: { in_app: false, push: true, email: false },
  weekly_summary: { in_app: true, push: false, email: true },
  new_course: { in_app: true, push: false, email: false },
  duels: { in_app: true, push: true, email: null },
  social: { in_app: true, push: true, email: null },
  exams: { in_app: true, push: true, email: null },
  support: { in_app: true, push: true, email: null },
  reports: { in_app: true, push: false, email: null },
};

export function isCategory(value: unknown): value is Category {
  return typeof value === 'string' && (CATEGORIES as readonly string[]).includes(value);
}

export function isEmailCategory(value: unknown): value is EmailCategory {
  return typeof value === 'string' && (EMAIL_CATEGORIES as readonly string[]).includes(value);
}

/** What a person changed, stored as is: `{<category>: {in_app?, push?, email?}}`. */
export type PreferenceOverrides = Partial<Record<Category, Partial<Record<Channel, boolean>>>>;

/** The defaults with the person's changes applied. */
export function effectivePreferences(overrides: PreferenceOverrides): Record<Category, ChannelPreference> {
  const out = {} as Record<Category, ChannelPreference>;
  for (const category of CATEGORIES) {
    const d = DEFAULT_PREFERENCES[category];
    const o = overrides[category] ?? {};
    out[category] = {
      in_app: o.in_app ?? d.in_app,
      push: o.push ?? d.push,
      email: d.email === null ? null : (o.email ?? d.email),
    };
  }
  return out;
}

/**
 * SQL for one channel's effective value of a category, reading the overrides column `alias.categories` (null when
 * the person has no preferences row). `category` and `channel` come from the constants above, never from input.
 */
export function preferenceSql(alias: string, category: Category, channel: Channel): string {
  const d = DEFAULT_PREFERENCES[category][channel];
  if (d === null) return 'false';
  return `COALESCE((${alias}.categories -> '${category}' ->> '${channel}')::boolean, ${d ? 'true' : 'false'})`;
}
