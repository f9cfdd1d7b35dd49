import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { LeaderboardStore } from './leaderboard.store';
import { LedgerRepository } from './ledger.repository';
import { resolvePeriod } from './periods';

/**
 * Operations on the cached leaderboards (extensions-v2 3.3: the ledger is the truth). `rebuild` drops an
 * organization's cached periods and builds the current week, month and all-time sets from the ledger; the CLI
 * (`npm run leaderboards:rebuild [org_id]`) runs it for one organization or every one with XP.
 */
@Injectable()
export class LeaderboardsService {
  constructor(
    private readonly store: LeaderboardStore,
    private readonly ledger: LedgerRepository,
    private readonly clock: Clock,
  ) {}

  async rebuild(organizationId?: string): Promise<{ organizations: number }> {
    const ids = organizationId ? [organizationId] : await this.ledger.organizationsWithXp();
    const zones = await this.ledger.organizationZones(ids);
    const now = this.clock.now();
    for (const id of ids) {
      const zone = zones.get(id) ?? 'UTC';
      await this.store.invalidate(id);
      for (const period of ['week', 'month', 'all'] as const)
        await this.store.rebuild(resolvePeriod(id, period, undefined, zone, now));
    }
    return { organizations: ids.length };
  }
}
