/**
 * Test support of the member-import area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export type { ImportRow } from './import-file';
export { MemberImportRepository } from './member-import.repository';
