import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@/config/app-config';
import { CoreModule } from '@/core/core.module';
import { AnnouncementsModule } from '@/modules/announcements/announcements.module';
import { AiUsageModule } from '@/modules/ai-usage/ai-usage.module';
import { ApiKeysModule } from '@/modules/api-keys/api-keys.module';
import { AuditLogModule } from '@/modules/audit/audit-log.module';
import { AuthModule } from '@/modules/auth/auth.module';
import { AvatarsModule } from '@/modules/avatars/avatars.module';
import { CertificatesModule } from '@/modules/certificates/certificates.module';
import { CohortsModule } from '@/modules/cohorts/cohorts.module';
import { CoursesModule } from '@/modules/courses/courses.module';
import { EditorModule } from '@/modules/editor/editor.module';
import { EmailWebhooksModule } from '@/modules/email-webhooks/email-webhooks.module';
import { ExamsModule } from '@/modules/exams/exams.module';
import { ExternalAuthModule } from '@/modules/external-auth/external-auth.module';
import { HealthModule } from '@/modules/health/health.module';
import { InstitutesModule } from '@/modules/institutes/institutes.module';
import { InvitationsModule } from '@/modules/invitations/invitations.module';
import { MemberImportModule } from '@/modules/member-import/member-import.module';
import { MembersModule } from '@/modules/members/members.module';
import { OAuthModule } from '@/modules/oauth/oauth.module';
import { OrganizationsModule } from '@/modules/organizations/organizations.module';
import { PathsModule } from '@/modules/paths/paths.module';
import { ProgressModule } from '@/modules/progress/progress.module';
import { SearchModule } from '@/modules/search/search.module';
import { SsoModule } from '@/modules/sso/sso.module';
import { TeacherModule } from '@/modules/teacher/teacher.module';
import { TutorModule } from '@/modules/tutor/tutor.module';
import { UsersModule } from '@/modules/users/users.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config),
        HealthModule,
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
        SearchModule,
        TeacherModule,
        ExternalAuthModule,
        SsoModule,
        OAuthModule,
        EmailWebhooksModule,
        AnnouncementsModule,
        AiUsageModule,
        TutorModule,
      ],
    };
  }
}
