/**
 * Test support of the deadlines area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { DeadlinesRepository } from './deadlines.repository';
export { DeadlinesService } from './deadlines.service';
