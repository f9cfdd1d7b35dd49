/**
 * Test support of the courses area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { CoursesRepository } from './courses.repository';
