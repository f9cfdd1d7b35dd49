/**
 * Test support of the reports area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { REPORT_COLUMNS } from './report-types';
export { REQUEST_ACCOUNT, REQUEST_ORGANIZATION } from './reports.limits';
export { ReportsRepository } from './reports.repository';
