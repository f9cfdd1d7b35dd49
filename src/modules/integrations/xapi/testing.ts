/**
 * Test support of the xapi area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { URL_NAMESPACE, uuidV5 } from './uuid-v5';
