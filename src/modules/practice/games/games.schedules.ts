import { Injectable } from '@nestjs/common';
import { defineSchedule, ScheduleHandler } from '@/core/queue/schedule';
import { GamesService } from './games.service';

/** extensions-v2 26.2: games untouched for 10 minutes become `abandoned`. */
export const ABANDON_IDLE = defineSchedule({ name: 'games.abandon_idle', cron: '*/5 * * * *' });

@Injectable()
export class GameJobs {
  constructor(private readonly games: GamesService) {}

  @ScheduleHandler(ABANDON_IDLE)
  async abandonIdle(): Promise<void> {
    await this.games.abandonIdle();
  }
}
