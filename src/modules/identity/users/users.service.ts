import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import type { PlatformRole } from '@/core/auth/credential';
import { CryptoService } from '@/core/crypto/crypto.service';
import type { Tx } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { type Locale, resolveLocale } from '@/core/mail/mail-template';
import type { UserDto } from './dto/user.dto';
import type { UpdateProfileDto } from './dto/profile.dto';
import {
  type CompleteOnboardingDto,
  FIRST_STEPS,
  type FirstStep,
  type OnboardingStatusDto,
  type StepState,
  type UpdateFirstStepsDto,
} from './dto/onboarding.dto';
import type { UserEntity } from './entities/user.entity';
import type { AgeBracket, AvatarChoice, User } from './users.types';
import { type MailContact, UsersRepository } from './users.repository';

/** Version of the terms the adult declaration is recorded against. */
export const TERMS_VERSION = '2026-09-01';
/** Version of the privacy policy (extensions-v2 17.2): raising it makes the web app ask again. */
export const PRIVACY_POLICY_VERSION = '2026-09-01';

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly clock: Clock,
    private readonly crypto: CryptoService,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** By id, in the caller's transaction (or export snapshot, an EntityManager) when given, else from the cache. */
  findById(id: string, tx?: Tx | EntityManager): Promise<User | null> {
    return this.users.findById(id, tx);
  }

  async getById(id: string): Promise<User> {
    const user = await this.users.findById(id);
    if (!user) throw ApiError.unauthorized();
    return user;
  }

  findByEmail(email: string, tx?: Tx): Promise<User | null> {
    return this.users.findByEmail(normalizeEmail(email), tx);
  }

  /** The accounts of these addresses (normalized here), keyed by the normalized address; one query. */
  async findByEmails(emails: readonly string[], tx?: Tx): Promise<Map<string, User>> {
    const normalized = [...new Set(emails.map(normalizeEmail))];
    const users = await this.users.findByEmails(normalized, tx);
    return new Map(users.map((u) => [u.email, u]));
  }

  findByIds(ids: string[]): Promise<User[]> {
    return this.users.findByIds(ids);
  }

  /** One batch of every account id, after `afterId` in id order (platform-wide fan-outs). */
  idsAfter(afterId: string | null, limit: number): Promise<string[]> {
    return this.users.idsAfter(afterId, limit);
  }

  /**
   * Address and language of these accounts for a bulk email; with `consentKind`, only the people whose latest
   * consent of that kind is granted (extensions-v2 17.2).
   */
  mailContacts(ids: readonly string[], consentKind: string | null = null): Promise<MailContact[]> {
    return this.users.mailContacts(ids, consentKind);
  }

  /** The account of this email, created on first use (sign-in or accepted invitation). */
  async findOrCreate(email: string, locale: Locale, tx?: Tx): Promise<{ user: User; created: boolean }> {
    const normalized = normalizeEmail(email);
    for (let attempt = 0; attempt < 6; attempt++) {
      // One statement finds the account or creates it when its email and the handle are free (two when the handle
      // is taken, or another transaction created the account meanwhile).
      const found = await this.users.findOrInsert(
        {
          email: normalized,
          username: this.usernameCandidate(normalized, attempt),
          locale,
          platformRoles: this.platformRolesFor(normalized, []),
          now: this.clock.now(),
        },
        tx,
      );
      if (found) return found;
      const raced = await this.users.findByEmail(normalized, tx);
      if (raced) return { user: raced, created: false };
      // The handle is taken: the next attempt adds a random suffix.
    }
    throw new Error(`No free handle for a new account after 6 attempts`);
  }

  /** `platform_admin` follows PLATFORM_ADMIN_EMAILS at each sign-in; other roles are kept. */
  async syncPlatformRoles(user: User, tx?: Tx): Promise<User> {
    const roles = this.platformRolesFor(user.email, user.platformRoles);
    if (roles.length === user.platformRoles.length && roles.every((r) => user.platformRoles.includes(r))) return user;
    await this.users.update(user.id, { platformRoles: roles }, this.clock.now(), tx);
    return { ...user, platformRoles: roles };
  }

  private platformRolesFor(email: string, current: PlatformRole[]): PlatformRole[] {
    const others = current.filter((r) => r !== 'platform_admin');
    return this.config.platformAdminEmails.includes(email) ? ['platform_admin', ...others] : others;
  }

  /** A handle from the email's local part; with a random suffix after the first attempt. */
  private usernameCandidate(email: string, attempt: number): string {
    const base = (email.split('@')[0] ?? '')
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 20)
      .padEnd(3, '0');
    return attempt === 0 ? base : `${base}-${this.crypto.randomFromAlphabet('abcdefghjkmnpqrstuvwxyz23456789', 4)}`;
  }

  /** The address of the person's SVG avatar, versioned by their avatar choice (cacheable forever). */
  avatarSvgUrl(user: Pick<User, 'id' | 'avatar'>): string {
    return `${this.config.baseUrl}/api/v1/users/${user.id}/avatar.svg?v=${avatarVersion(user.avatar)}`;
  }

  toDto(user: User): UserDto {
    return {
      id: user.id,
      email: user.email,
      username: user.username,
      name: user.name,
      headline: user.headline,
      bio: user.bio,
      location: user.location,
      avatar_url: user.avatarUrl,
      locale: user.locale,
      public_profile: user.publicProfile,
      time_zone: user.timeZone,
      platform_roles: user.platformRoles,
      two_factor_enabled: user.twoFactorEnabledAt !== null,
      onboarding_completed: user.onboardingCompletedAt !== null,
      last_organization_id: user.lastOrganizationId,
      avatar_svg_url: this.avatarSvgUrl(user),
      created_at: user.createdAt.toISOString(),
    };
  }

  async updateProfile(userId: string, dto: UpdateProfileDto): Promise<User> {
    // Minors are never shown by name to other learners (extensions-v2 17.6): their profile stays private.
    if (dto.public_profile === true && (await this.getById(userId)).ageBracket === 'under_18') {
      throw ApiError.forbidden('A minor’s profile cannot be public.', 'minor_restricted');
    }
    const changes: Partial<UserEntity> = {};
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.headline !== undefined) changes.headline = dto.headline || null;
    if (dto.bio !== undefined) changes.bio = dto.bio;
    if (dto.location !== undefined) changes.location = dto.location || null;
    if (dto.avatar_url !== undefined) changes.avatarUrl = dto.avatar_url;
    if (dto.locale !== undefined) changes.locale = dto.locale;
    if (dto.public_profile !== undefined) changes.publicProfile = dto.public_profile;
    if (dto.time_zone !== undefined) changes.timeZone = dto.time_zone;
    if (Object.keys(changes).length > 0) await this.users.update(userId, changes, this.clock.now());
    return this.getById(userId);
  }

  async saveAvatar(userId: string, choice: AvatarChoice): Promise<void> {
    await this.users.update(userId, { avatar: choice }, this.clock.now());
  }

  setLastOrganization(userId: string, organizationId: string | null, tx?: Tx): Promise<void> {
    return this.users.update(userId, { lastOrganizationId: organizationId }, this.clock.now(), tx);
  }

  raiseTokenVersion(userId: string, tx?: Tx): Promise<number> {
    return this.users.raiseTokenVersion(userId, this.clock.now(), tx);
  }

  changeEmail(userId: string, email: string, tx?: Tx): Promise<void> {
    return this.users.update(userId, { email: normalizeEmail(email) }, this.clock.now(), tx);
  }

  acceptTotpStep(userId: string, step: number): Promise<boolean> {
    return this.users.acceptTotpStep(userId, step);
  }

  setTwoFactor(
    userId: string,
    changes: Pick<Partial<UserEntity>, 'twoFactorSecret' | 'twoFactorEnabledAt' | 'twoFactorLastStep'>,
    tx?: Tx,
  ): Promise<void> {
    return this.users.update(userId, changes, this.clock.now(), tx);
  }

  onboardingStatus(user: User): OnboardingStatusDto {
    const steps = Object.fromEntries(FIRST_STEPS.map((s) => [s, user.firstSteps[s] ?? 'pending'])) as Record<
      FirstStep,
      StepState
    >;
    return {
      completed: user.onboardingCompletedAt !== null,
      first_steps: steps,
      first_steps_hidden: user.firstStepsHidden,
    };
  }

  /** Completes onboarding; the adult declaration is recorded as a consent with the current terms version. */
  async completeOnboarding(
    userId: string,
    dto: CompleteOnboardingDto,
    ip: string | null,
  ): Promise<OnboardingStatusDto> {
    if (dto.adult_confirmed !== true) {
      throw ApiError.unprocessable(
        'adult_declaration_required',
        'Confirm that you are an adult to continue.',
        'adult_confirmed',
      );
    }
    const now = this.clock.now();
    const user = await this.getById(userId);
    // A bracket an organization manages as under 18 cannot be declared away here (extensions-v2 17.5).
    if (user.ageBracketManagedBy !== null && user.ageBracket === 'under_18') {
      throw ApiError.conflict('age_bracket_managed', 'Your age bracket is managed by your organization.');
    }
    await this.users.update(
      userId,
      {
        name: dto.name,
        locale: dto.locale,
        ageBracket: user.ageBracketManagedBy !== null ? user.ageBracket : 'adult',
        onboardingCompletedAt: user.onboardingCompletedAt ?? now,
      },
      now,
    );
    await this.users.recordConsent(
      userId,
      'adult_declaration',
      TERMS_VERSION,
      ip ? this.audit.ipFingerprint(ip) : null,
      now,
    );
    return this.onboardingStatus(await this.getById(userId));
  }

  /**
   * Appends a consent to the person's history (extensions-v2 17.2), in the caller's transaction when given; the
   * client address is kept only as its keyed fingerprint.
   */
  async recordConsent(
    userId: string,
    consent: { kind: string; version: string; granted: boolean },
    ip: string | null,
    tx?: Tx,
  ): Promise<void> {
    await this.users.recordConsent(
      userId,
      consent.kind,
      consent.version,
      ip ? this.audit.ipFingerprint(ip) : null,
      this.clock.now(),
      tx,
      consent.granted,
    );
  }

  /**
   * Withdraws a granted consent of this kind (a one-click unsubscribe), in the caller's transaction; nothing when
   * the person's newest row of that kind is not a grant.
   */
  async withdrawConsent(userId: string, kind: string, now: Date, tx: Tx): Promise<void> {
    await this.users.withdrawConsent(userId, kind, now, tx);
  }

  /**
   * Sets the age bracket (extensions-v2 17.5) and who manages it (`undefined` leaves the manager as it is). Every
   * instance drops its cached account, so the next request of the person reads the new bracket.
   */
  async setAgeBracket(
    userId: string,
    ageBracket: AgeBracket | null,
    managedBy: string | null | undefined,
    tx?: Tx,
  ): Promise<void> {
    await this.users.update(
      userId,
      managedBy === undefined ? { ageBracket } : { ageBracket, ageBracketManagedBy: managedBy },
      this.clock.now(),
      tx,
    );
  }

  async updateFirstSteps(userId: string, dto: UpdateFirstStepsDto): Promise<OnboardingStatusDto> {
    const user = await this.getById(userId);
    await this.users.update(
      userId,
      {
        firstSteps: { ...user.firstSteps, ...dto.steps },
        firstStepsHidden: dto.hidden ?? user.firstStepsHidden,
      },
      this.clock.now(),
    );
    return this.onboardingStatus(await this.getById(userId));
  }

  /** The person's language for email: their own, else the organization's, else Spanish. */
  emailLocale(user: Pick<User, 'locale'> | null, organizationLocale?: string | null): Locale {
    return resolveLocale(user?.locale, organizationLocale);
  }
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A short fingerprint of the avatar choice, used to bust caches when it changes. */
const versionOf = (choice: AvatarChoice | Record<string, never>): string =>
  createHash('sha256').update(JSON.stringify(choice)).digest('hex').slice(0, 12);
const NO_CHOICE_VERSION = versionOf({});
// Accounts come from a shared cache, so the same choice object is asked for on every request of its owner.
const versions = new WeakMap<AvatarChoice, string>();

export function avatarVersion(choice: AvatarChoice | null): string {
  if (choice === null) return NO_CHOICE_VERSION;
  let version = versions.get(choice);
  if (version === undefined) versions.set(choice, (version = versionOf(choice)));
  return version;
}
