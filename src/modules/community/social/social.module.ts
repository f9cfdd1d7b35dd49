import { Module } from '@nestjs/common';
import { MembersModule } from '@/modules/tenancy/members/members.module';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { ActivitySubscriber } from './social.subscribers';
import { FeedController } from './feed.controller';
import { FeedService } from './feed.service';
import { ModerationController } from './moderation.controller';
import { ModerationService } from './moderation.service';
import { MutesPersonalData, SocialPersonalData } from './social.personal-data';
import { SocialRepository } from './social.repository';

/**
 * Social feed and moderation (extensions-v2 sections 11 and 12): posts, comments, reactions, reports, activity
 * items written from other areas' domain events, and the moderation of owners and admins. Nothing is exported:
 * other areas learn about the feed through its events.
 */
@Module({
  imports: [MembersModule, OrganizationsModule],
  controllers: [FeedController, ModerationController],
  providers: [
    SocialRepository,
    FeedService,
    ModerationService,
    ActivitySubscriber,
    SocialPersonalData,
    MutesPersonalData,
  ],
})
export class SocialModule {}
