import type { PlatformRole } from '@/core/auth/credential';
import type { Locale } from '@/core/mail/mail-template';

/*
 * The users area's public read types: what `UsersService` hands to other areas. The TypeORM entity stays
 * inside the area (it implements `User`), so no other area depends on its mapping.
 */

export type AgeBracket = 'adult' | 'under_18';

/** Saved avatar choice: the generated avatar's traits and colors (null fields let the seed decide). */
export interface AvatarChoice {
  seed: string;
  head: string | null;
  expression: string | null;
  facial_hair: string | null;
  accessories: string | null;
  mask: string | null;
  skin_color: string | null;
  hair_color: string | null;
  clothing_color: string | null;
  background: string | null;
}

/** A person's account as the service knows it. */
export interface User {
  readonly id: string;
  readonly email: string;
  readonly username: string;
  readonly name: string | null;
  readonly headline: string | null;
  readonly bio: string | null;
  readonly location: string | null;
  readonly avatarUrl: string | null;
  readonly locale: Locale;
  readonly timeZone: string;
  readonly publicProfile: boolean;
  readonly platformRoles: PlatformRole[];
  /** Raised to end every access token issued before. */
  readonly tokenVersion: number;
  readonly lastOrganizationId: string | null;
  readonly ageBracket: AgeBracket | null;
  /** The organization whose owner/admin set the bracket and manages it (extensions-v2 17.5), or null. */
  readonly ageBracketManagedBy: string | null;
  readonly avatar: AvatarChoice | null;
  /** Encrypted TOTP secret (the auth area's to read and check). */
  readonly twoFactorSecret: string | null;
  readonly twoFactorEnabledAt: Date | null;
  readonly twoFactorLastStep: number | null;
  readonly onboardingCompletedAt: Date | null;
  readonly firstSteps: Record<string, 'done' | 'pending'>;
  readonly firstStepsHidden: boolean;
  /** Set when the account was erased (the row is a tombstone, extensions-v2 17.3). */
  readonly erasedAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}
