/**
 * Test support of the auth area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { FAILED_ATTEMPTS_ACCOUNT } from './auth.limits';
export { SIGN_IN_CODE } from './auth.mails';
