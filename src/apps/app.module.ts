import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@/config/app-config';
import { CoreModule } from '@/core/core.module';
import { AnnouncementsModule } from '@/modules/community/announcements/announcements.module';
import { NotificationsModule } from '@/modules/community/notifications/notifications.module';
import { AiUsageModule } from '@/modules/assistant/ai-usage/ai-usage.module';
import { ApiKeysModule } from '@/modules/identity/api-keys/api-keys.module';
import { AuditLogModule } from '@/modules/tenancy/audit/audit-log.module';
import { AuthModule } from '@/modules/identity/auth/auth.module';
import { AvatarsModule } from '@/modules/identity/avatars/avatars.module';
import { CertificatesModule } from '@/modules/learning/certificates/certificates.module';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { DuelsModule } from '@/modules/practice/duels/duels.module';
import { EditorModule } from '@/modules/learning/editor/editor.module';
import { EmailWebhooksModule } from '@/modules/community/email-webhooks/email-webhooks.module';
import { ExamsModule } from '@/modules/learning/exams/exams.module';
import { FlashcardsModule } from '@/modules/practice/flashcards/flashcards.module';
import { ExternalAuthModule } from '@/modules/identity/external-auth/external-auth.module';
import { GamesModule } from '@/modules/practice/games/games.module';
import { GamificationModule } from '@/modules/practice/gamification/gamification.module';
import { HealthModule } from '@/modules/platform/health/health.module';
import { OperationsModule } from '@/modules/platform/operations/operations.module';
import { InstitutesModule } from '@/modules/tenancy/institutes/institutes.module';
import { InvitationsModule } from '@/modules/tenancy/invitations/invitations.module';
import { MemberImportModule } from '@/modules/tenancy/member-import/member-import.module';
import { MembersModule } from '@/modules/tenancy/members/members.module';
import { NotesModule } from '@/modules/learning/notes/notes.module';
import { OAuthModule } from '@/modules/identity/oauth/oauth.module';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { PathsModule } from '@/modules/learning/paths/paths.module';
import { PrivacyModule } from '@/modules/identity/privacy/privacy.module';
import { ProgressModule } from '@/modules/learning/progress/progress.module';
import { ReportsModule } from '@/modules/insight/reports/reports.module';
import { StatsModule } from '@/modules/insight/stats/stats.module';
import { SupportModule } from '@/modules/community/support/support.module';
import { PublicModule } from '@/modules/integrations/public/public.module';
import { TelemetryModule } from '@/modules/insight/telemetry/telemetry.module';
import { SearchModule } from '@/modules/learning/search/search.module';
import { SocialModule } from '@/modules/community/social/social.module';
import { SsoModule } from '@/modules/identity/sso/sso.module';
import { TeacherModule } from '@/modules/learning/teacher/teacher.module';
import { TutorModule } from '@/modules/assistant/tutor/tutor.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { DeadlinesModule } from '@/modules/learning/deadlines/deadlines.module';
import { XapiModule } from '@/modules/integrations/xapi/xapi.module';
import { OpenBadgesModule } from '@/modules/integrations/open-badges/open-badges.module';
import { WebhooksModule } from '@/modules/integrations/webhooks/webhooks.module';
import { PasskeysModule } from '@/modules/identity/passkeys/passkeys.module';
import { ScimModule } from '@/modules/tenancy/scim/scim.module';
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
        PasskeysModule,
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
        GamificationModule.forRoot(config),
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
        OpenBadgesModule,
        DeadlinesModule,
        XapiModule,
        SocialModule,
        TutorModule,
        PrivacyModule,
        ScimModule,
        LtiModule,
        LtiServicesModule,
      ],
    };
  }
}
