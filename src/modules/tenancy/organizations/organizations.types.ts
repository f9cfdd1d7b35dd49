import type { Locale } from '@/core/mail/mail-template';

/*
 * The organizations area's public read type: what `OrganizationsService` hands to other areas. The TypeORM
 * entity stays inside the area (it implements `Organization`).
 */

export type OrganizationStatus = 'active' | 'suspended';

export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly locale: Locale;
  readonly timeZone: string;
  readonly logoUrl: string | null;
  readonly brandColor: string | null;
  readonly status: OrganizationStatus;
  readonly suspendedAt: Date | null;
  readonly suspendedReason: string | null;
  readonly plan: string;
  readonly memberLimit: number | null;
  /** Plan limits of AI use per UTC month (extensions-v2 16.1, 24.3); null is unlimited. */
  readonly aiMonthlyTokens: number | null;
  readonly aiMonthlyRequests: number | null;
  readonly legacyInstituteId: string | null;
  readonly certIssuerName: string | null;
  readonly certSignatureName: string | null;
  readonly certSignatureTitle: string | null;
  readonly certLogoUrl: string | null;
  readonly certFooterText: string | null;
  readonly certAccentColor: string | null;
  readonly createdBy: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}
