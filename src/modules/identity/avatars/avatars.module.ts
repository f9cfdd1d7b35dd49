import { Module } from '@nestjs/common';
import { UsersModule } from '@/modules/identity/users/users.module';
import { AvatarSanitizer } from './avatar-sanitizer';
import { AvatarStyle } from './avatar-style';
import { AvatarVisibility } from './avatar-visibility';
import { AvatarsController } from './avatars.controller';
import { AvatarsService } from './avatars.service';

/** Server-generated avatars (DiceBear Open Peeps): catalog, preview, a person's avatar, the saved choice. */
@Module({
  imports: [UsersModule],
  controllers: [AvatarsController],
  providers: [AvatarStyle, AvatarSanitizer, AvatarVisibility, AvatarsService],
})
export class AvatarsModule {}
