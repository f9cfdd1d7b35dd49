/**
 * Test support of the support area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { CREATE_ACCOUNT, MESSAGE_ACCOUNT } from './support.limits';
