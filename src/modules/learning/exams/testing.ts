/**
 * Test support of the exams area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { ExamAccess } from './exam-access';
export { SessionNotDueYet } from './exam-sessions.service';
export { ExamSessionsRepository } from './exam-sessions.repository';
export { CLOSE_OVERDUE } from './exams.jobs';
export { ExamsRepository } from './exams.repository';
