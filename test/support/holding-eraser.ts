import { Injectable, Module } from '@nestjs/common';
import { type EraseContext, PersonalData, type PersonalDataHandler } from '@/core/privacy/personal-data';

/**
 * Test erasers for the "worker killed mid-erasure" test: an early one that only counts its runs, and a later one
 * that, when `holdState.hold` is set (in the worker process), signals and then waits forever inside its step's
 * transaction, so the process can be killed there.
 */
export const holdState = {
  calls: [] as string[],
  hold: undefined as undefined | { started: () => void },
};

@Injectable()
@PersonalData({ area: 'probe', key: 'counted', tables: [], eraseOrder: 15 })
export class CountedProbeEraser implements PersonalDataHandler {
  export() {
    return Promise.resolve([]);
  }
  erase({ userId }: EraseContext) {
    holdState.calls.push(`counted:${userId}`);
    return Promise.resolve();
  }
}

@Injectable()
@PersonalData({ area: 'probe', key: 'held', tables: [], eraseOrder: 300 })
export class HeldProbeEraser implements PersonalDataHandler {
  export() {
    return Promise.resolve([]);
  }
  async erase({ userId, tx }: EraseContext) {
    holdState.calls.push(`held:${userId}`);
    // A write of the step that must roll back with it.
    await tx.manager.query(`UPDATE users SET bio = 'held step' WHERE id = $1`, [userId]);
    const hold = holdState.hold;
    if (hold) {
      hold.started();
      await new Promise<void>(() => undefined);
    }
  }
}

@Module({ providers: [CountedProbeEraser, HeldProbeEraser] })
export class HoldingErasersModule {}
