/**
 * Test support of the progress area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { ProgressRepository } from './progress.repository';
