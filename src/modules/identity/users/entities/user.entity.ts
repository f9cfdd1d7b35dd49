import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { PlatformRole } from '@/core/auth/credential';
import type { Locale } from '@/core/mail/mail-template';
import type { AgeBracket, AvatarChoice, User } from '../users.types';

/** The `users` table's mapping; other areas see it as `User` (users.types.ts). */
@Entity('users')
export class UserEntity implements User {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('text') email!: string;
  @Column('text') username!: string;
  @Column('text', { nullable: true }) name!: string | null;
  @Column('text', { nullable: true }) headline!: string | null;
  @Column('text', { nullable: true }) bio!: string | null;
  @Column('text', { nullable: true }) location!: string | null;
  @Column('text', { name: 'avatar_url', nullable: true }) avatarUrl!: string | null;
  @Column('text') locale!: Locale;
  @Column('text', { name: 'time_zone' }) timeZone!: string;
  @Column('boolean', { name: 'public_profile' }) publicProfile!: boolean;
  @Column('text', { name: 'platform_roles', array: true }) platformRoles!: PlatformRole[];
  @Column('int', { name: 'token_version' }) tokenVersion!: number;
  @Column('uuid', { name: 'last_organization_id', nullable: true }) lastOrganizationId!: string | null;
  @Column('text', { name: 'age_bracket', nullable: true }) ageBracket!: AgeBracket | null;
  /** The organization that manages the bracket (extensions-v2 17.5), or null. */
  @Column('uuid', { name: 'age_bracket_managed_by', nullable: true }) ageBracketManagedBy!: string | null;
  @Column('jsonb', { nullable: true }) avatar!: AvatarChoice | null;
  @Column('text', { name: 'two_factor_secret', nullable: true }) twoFactorSecret!: string | null;
  @Column('timestamptz', { name: 'two_factor_enabled_at', nullable: true }) twoFactorEnabledAt!: Date | null;
  @Column('bigint', {
    name: 'two_factor_last_step',
    nullable: true,
    transformer: { from: (v: string | null) => (v === null ? null : Number(v)), to: (v: number | null) => v },
  })
  twoFactorLastStep!: number | null;
  @Column('timestamptz', { name: 'onboarding_completed_at', nullable: true }) onboardingCompletedAt!: Date | null;
  @Column('jsonb', { name: 'first_steps' }) firstSteps!: Record<string, 'done' | 'pending'>;
  @Column('boolean', { name: 'first_steps_hidden' }) firstStepsHidden!: boolean;
  /** Set when the account was erased (the row is a tombstone, extensions-v2 17.3). */
  @Column('timestamptz', { name: 'erased_at', nullable: true }) erasedAt!: Date | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}
