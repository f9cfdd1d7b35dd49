import { Global, Module } from '@nestjs/common';
import { AiUsageFigures } from '@/modules/tenancy/organizations';
import { UsersModule } from '@/modules/identity/users/users.module';
import { AiUsageFiguresOfMetering } from './ai-usage-figures';
import { AiUsageController } from './ai-usage.controller';
import { AiUsagePersonalData } from './ai-usage.personal-data';
import { AiUsageRepository } from './ai-usage.repository';
import { AiUsageService } from './ai-usage.service';

/** Global so the organizations area finds the `AiUsageFigures` port this area provides (plan usage). */
@Global()
@Module({
  imports: [UsersModule],
  controllers: [AiUsageController],
  providers: [
    AiUsageRepository,
    AiUsageService,
    AiUsagePersonalData,
    { provide: AiUsageFigures, useClass: AiUsageFiguresOfMetering },
  ],
  exports: [AiUsageService, AiUsageFigures],
})
export class AiUsageModule {}
