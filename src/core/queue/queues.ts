/**
 * The Bull queues of the service. A job belongs to one; heavy work (imports, exports, documents) gets its
 * own queue so it never delays short jobs such as email.
 */
export const QUEUE_NAMES = ['mail', 'default', 'imports', 'documents', 'notifications', 'ai', 'webhooks'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** How many jobs of a queue one process runs at once. */
export const QUEUE_CONCURRENCY: Record<QueueName, number> = {
  mail: 4,
  default: 4,
  imports: 1,
  documents: 2,
  notifications: 4,
  ai: 2,
  webhooks: 4,
};
