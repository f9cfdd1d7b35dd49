import { Column, Entity, PrimaryGeneratedColumn, type ValueTransformer } from 'typeorm';
import type { Locale } from '@/core/mail/mail-template';
import type { Organization, OrganizationStatus } from '../organizations.types';

/** `bigint` arrives as a string from the driver; these limits stay far below 2^53. */
const bigintNumber: ValueTransformer = {
  from: (value: string | null) => (value === null ? null : Number(value)),
  to: (value: number | null | undefined) => value,
};

/** The `organizations` table's mapping; other areas see it as `Organization` (organizations.types.ts). */
@Entity('organizations')
export class OrganizationEntity implements Organization {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('text') name!: string;
  @Column('text') slug!: string;
  @Column('text') locale!: Locale;
  @Column('text', { name: 'time_zone' }) timeZone!: string;
  @Column('text', { name: 'logo_url', nullable: true }) logoUrl!: string | null;
  @Column('text', { name: 'brand_color', nullable: true }) brandColor!: string | null;
  @Column('text') status!: OrganizationStatus;
  @Column('timestamptz', { name: 'suspended_at', nullable: true }) suspendedAt!: Date | null;
  @Column('text', { name: 'suspended_reason', nullable: true }) suspendedReason!: string | null;
  @Column('text') plan!: string;
  @Column('int', { name: 'member_limit', nullable: true }) memberLimit!: number | null;
  /** Plan limits of AI use per UTC month (extensions-v2 16.1, 24.3); null is unlimited. */
  @Column('bigint', { name: 'ai_monthly_tokens', nullable: true, transformer: bigintNumber })
  aiMonthlyTokens!: number | null;
  @Column('int', { name: 'ai_monthly_requests', nullable: true }) aiMonthlyRequests!: number | null;
  @Column('uuid', { name: 'legacy_institute_id', nullable: true }) legacyInstituteId!: string | null;
  @Column('text', { name: 'cert_issuer_name', nullable: true }) certIssuerName!: string | null;
  @Column('text', { name: 'cert_signature_name', nullable: true }) certSignatureName!: string | null;
  @Column('text', { name: 'cert_signature_title', nullable: true }) certSignatureTitle!: string | null;
  @Column('text', { name: 'cert_logo_url', nullable: true }) certLogoUrl!: string | null;
  @Column('text', { name: 'cert_footer_text', nullable: true }) certFooterText!: string | null;
  @Column('text', { name: 'cert_accent_color', nullable: true }) certAccentColor!: string | null;
  @Column('uuid', { name: 'created_by', nullable: true }) createdBy!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}
