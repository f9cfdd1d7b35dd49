/**
 * Test support of the email-webhooks area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { PRUNE_EMAIL_WEBHOOK_IDS } from './email-webhooks.schedules';
