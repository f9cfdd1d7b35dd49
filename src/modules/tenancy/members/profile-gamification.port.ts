import type { Locale } from '@/core/mail/mail-template';
import type { ProfileGamificationDto } from './dto/profile.dto';

/**
 * The gamification block of a colleague's profile (extensions-v2 3.1), answered by the engagement area (which
 * depends on members for the person rule, so members declares the port and gamification provides it).
 */
export abstract class ProfileGamification {
  abstract of(organizationId: string, userId: string, locale: Locale): Promise<ProfileGamificationDto>;
}
