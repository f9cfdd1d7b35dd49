/*
 * The migration chain, oldest first. Each file is `<timestamp>-<Name>.ts` exporting `<Name><timestamp>`.
 * Listed explicitly (not globbed) so the app, the CLI and jest load the same classes; a unit test fails
 * when a file in this folder is missing here.
 */
import { Announcements1763754600000 } from './1763754600000-Announcements';
import { AiTutor1763758100000 } from './1763758100000-AiTutor';
import { OutboundWebhooks1763759000000 } from './1763759000000-OutboundWebhooks';
import { CohortDeadlines1763759100000 } from './1763759100000-CohortDeadlines';
import { Architecture1763741800000 } from './1763741800000-Architecture';
import { CatalogIndexes1763741400000 } from './1763741400000-CatalogIndexes';
import { CertificateIndexes1763741500000 } from './1763741500000-CertificateIndexes';
import { CertificateCounts1763760000000 } from './1763760000000-CertificateCounts';
import { OutboxFillfactor1763763000000 } from './1763763000000-OutboxFillfactor';
import { Passkeys1795905961059 } from './1795905961059-Passkeys';
import { FlashcardReschedulingGameServing1795906293831 } from './1795906293831-FlashcardReschedulingGameServing';
import { PublicBadgeIndexes1795908662960 } from './1795908662960-PublicBadgeIndexes';
import { TutorQuotaReservations1795909498469 } from './1795909498469-TutorQuotaReservations';
import { ReadViews1795917055499 } from './1795917055499-ReadViews';
import { GamificationReportReads1795917055600 } from './1795917055600-GamificationReportReads';
import { MoreReadViews1795928717247 } from './1795928717247-MoreReadViews';
import { DirectoryReadViews1795929000000 } from './1795929000000-DirectoryReadViews';
import { IanaTimeZones1795930000000 } from './1795930000000-IanaTimeZones';
import { Scim1795905905308 } from './1795905905308-Scim';
import { CohortsInstitutes1763741200000 } from './1763741200000-CohortsInstitutes';
import { EmailWebhooks1763754500000 } from './1763754500000-EmailWebhooks';
import { Duels1763752000000 } from './1763752000000-Duels';
import { Exams1763753000000 } from './1763753000000-Exams';
import { ExternalAuth1763741600000 } from './1763741600000-ExternalAuth';
import { Gamification1763750000000 } from './1763750000000-Gamification';
import { Foundation1763740800000 } from './1763740800000-Foundation';
import { Identity1763740900000 } from './1763740900000-Identity';
import { LearningCore1763741300000 } from './1763741300000-LearningCore';
import { ReportsSupportPublic1763757000000 } from './1763757000000-ReportsSupportPublic';
import { LessonChunks1763758000000 } from './1763758000000-LessonChunks';
import { Privacy1763756000000 } from './1763756000000-Privacy';
import { Practice1763751000000 } from './1763751000000-Practice';
import { PersonalDataErasure1763741900000 } from './1763741900000-PersonalDataErasure';
import { Notifications1763754000000 } from './1763754000000-Notifications';
import { OAuthTokenTenancy1763742000000 } from './1763742000000-OAuthTokenTenancy';
import { Social1763755000000 } from './1763755000000-Social';
import { SearchVectors1763741700000 } from './1763741700000-SearchVectors';
import { Tenancy1763741000000 } from './1763741000000-Tenancy';
import { Lti1795905889664 } from './1795905889664-Lti';

export const MIGRATIONS = [
  Foundation1763740800000,
  Identity1763740900000,
  Tenancy1763741000000,
  CohortsInstitutes1763741200000,
  LearningCore1763741300000,
  CatalogIndexes1763741400000,
  CertificateIndexes1763741500000,
  ExternalAuth1763741600000,
  SearchVectors1763741700000,
  Architecture1763741800000,
  PersonalDataErasure1763741900000,
  OAuthTokenTenancy1763742000000,
  Gamification1763750000000,
  Practice1763751000000,
  Duels1763752000000,
  Exams1763753000000,
  Notifications1763754000000,
  EmailWebhooks1763754500000,
  Announcements1763754600000,
  Social1763755000000,
  Privacy1763756000000,
  ReportsSupportPublic1763757000000,
  LessonChunks1763758000000,
  AiTutor1763758100000,
  OutboundWebhooks1763759000000,
  CohortDeadlines1763759100000,
  CertificateCounts1763760000000,
  OutboxFillfactor1763763000000,
  Lti1795905889664,
  Scim1795905905308,
  Passkeys1795905961059,
  FlashcardReschedulingGameServing1795906293831,
  PublicBadgeIndexes1795908662960,
  TutorQuotaReservations1795909498469,
  ReadViews1795917055499,
  GamificationReportReads1795917055600,
  MoreReadViews1795928717247,
  DirectoryReadViews1795929000000,
  IanaTimeZones1795930000000,
];
