/**
 * Test support of the privacy area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { ERASE_ACCOUNT, ERASURE_REMINDERS, EXPIRE_EXPORTS, RUN_DUE_ERASURES } from './privacy.jobs';
export { PrivacyRepository } from './privacy.repository';
