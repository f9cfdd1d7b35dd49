/**
 * Test support of the lti area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { LTI_TOKEN_TOOL, ltiServiceBudget } from './lti.limits';
export { LtiMaintenance } from './lti.schedules';
