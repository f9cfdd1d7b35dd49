/**
 * Test support of the webhooks area: internals the suites reach on purpose (to arrange rows or read
 * what a job wrote). Only test/ and bench/ may import it; lint refuses it anywhere under src/.
 */
export { WebhookSender } from './webhook-sender';
export { DISABLE_FAILING, PRUNE_DELIVERIES } from './webhooks.jobs';
