import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@/config/app-config';
import { CoreModule } from '@/core/core.module';
import { AnnouncementsModule } from '@/modules/announcements/announcements.module';
import { NotificationsModule } from '@/modules/notifications/notifications.module';
import { AiUsageModule } from '@/modules/ai-usage/ai-usage.module';
import { ApiKeysModule } from '@/modules/api-keys/api-keys.module';
import { AuditLogModule } from '@/modules/audit/audit-log.module';
import { AuthModule } from '@/modules/auth/auth.module';
import { AvatarsModule } from '@/modules/avatars/avatars.module';
import { CertificatesModule } from '@/modules/certificates/certificates.module';
import { CohortsModule } from '@/modules/cohorts/cohorts.module';
import { CoursesModule } from '@/modules/courses/courses.module';
import { DuelsModule } from '@/modules/duels/duels.module';
import { EditorModule } from '@/modules/editor/editor.module';
import { EmailWebhooksModule } from '@/modules/email-webhooks/email-webhooks.module';
import { ExamsModule } from '@/modules/exams/exams.module';
import { FlashcardsModule } from '@/modules/flashcards/flashcards.module';
import { ExternalAuthModule } from '@/modules/external-auth/external-auth.module';
import { GamesModule } from '@/modules/games/games.module';
import { GamificationModule } from '@/modules/gamification/gamification.module';
import { HealthModule } from '@/modules/health/health.module';
import { OperationsModule } from '@/modules/operations/operations.module';
import { InstitutesModule } from '@/modules/institutes/institutes.module';
import { InvitationsModule } from '@/modules/invitations/invitations.module';
import { MemberImportModule } from '@/modules/member-import/member-import.module';
import { MembersModule } from '@/modules/members/members.module';
import { NotesModule } from '@/modules/notes/notes.module';
import { OAuthModule } from '@/modules/oauth/oauth.module';
import { OrganizationsModule } from '@/modules/organizations/organizations.module';
import { PathsModule } from '@/modules/paths/paths.module';
import { PrivacyModule } from '@/modules/privacy/privacy.module';
import { ProgressModule } from '@/modules/progress/progress.module';
import { ReportsModule } from '@/modules/reports/reports.module';
import { StatsModule } from '@/modules/stats/stats.module';
import { SupportModule } from '@/modules/support/support.module';
import { PublicModule } from '@/modules/public/public.module';
import { TelemetryModule } from '@/modules/telemetry/telemetry.module';
import { SearchModule } from '@/modules/search/search.module';
import { SocialModule } from '@/modules/social/social.module';
import { SsoModule } from '@/modules/sso/sso.module';
import { TeacherModule } from '@/modules/teacher/teacher.module';
import { TutorModule } from '@/modules/tutor/tutor.module';
import { UsersModule } from '@/modules/users/users.module';
import { DeadlinesModule } from '@/modules/deadlines/deadlines.module';
import { XapiModule } from '@/modules/xapi/xapi.module';
import { OpenBadgesModule } from '@/modules/open-badges/open-badges.module';
import { WebhooksModule } from '@/modules/webhooks/webhooks.module';
import { LtiModule } from '@/modules/integrations/lti/lti.module';
import { LtiServicesModule } from '@/modules/integrations/lti/lti-services.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config),
        HealthModule,
        OperationsModule,
        UsersModule,
        AuthModule,
        OrganizationsModule,
        ApiKeysModule,
        AvatarsModule,
        CohortsModule,
        InstitutesModule,
        AuditLogModule,
        MembersModule,
        InvitationsModule,
        MemberImportModule,
        CertificatesModule,
        PathsModule,
        CoursesModule,
        EditorModule,
        ProgressModule,
        ExamsModule,
        FlashcardsModule,
        NotesModule,
        GamesModule,
        DuelsModule,
        GamificationModule,
        SearchModule,
        TeacherModule,
        ExternalAuthModule,
        SsoModule,
        OAuthModule,
        EmailWebhooksModule,
        AnnouncementsModule,
        NotificationsModule,
        AiUsageModule,
        ReportsModule,
        StatsModule,
        SupportModule,
        PublicModule,
        TelemetryModule,
        WebhooksModule,
        LtiModule,
        LtiServicesModule,
        OpenBadgesModule,
        DeadlinesModule,
        XapiModule,
        SocialModule,
        TutorModule,
        PrivacyModule,
      ],
    };
  }
}
