import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { MembersModule } from '@/modules/tenancy/members/members.module';
import { DuelEngine, DuelTiming } from './duel-engine';
import { DuelLiveStore } from './duel-live.store';
import { DuelsController } from './duels.controller';
import { DuelsGateway } from './duels.gateway';
import { DuelsJobs } from './duels.schedules';
import { DuelsPersonalData } from './duels.personal-data';
import { DuelsRealtime } from './duels-realtime';
import { DuelsRepository } from './duels.repository';
import { DuelsService } from './duels.service';

/** Duels (extensions-v2 section 8): challenges over HTTP, matchmaking and play over Socket.IO (`/duels`). */
@Module({
  imports: [MembersModule],
  controllers: [DuelsController],
  providers: [
    DuelsRepository,
    DuelsService,
    DuelsRealtime,
    DuelLiveStore,
    DuelEngine,
    DuelsGateway,
    DuelsJobs,
    DuelsPersonalData,
    {
      provide: DuelTiming,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => new DuelTiming(c.duels.roundMs, c.duels.countdownMs, c.duels.reconnectWindowMs),
    },
  ],
})
export class DuelsModule {}
