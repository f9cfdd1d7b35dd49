/**
 * Test support of the duels area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { DuelEngine, DuelTiming } from './duel-engine';
export { DuelLiveStore } from './duel-live.store';
