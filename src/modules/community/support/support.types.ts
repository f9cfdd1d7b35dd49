export const TICKET_CATEGORIES = ['account', 'access', 'billing', 'content', 'technical', 'other'] as const;
export type TicketCategory = (typeof TICKET_CATEGORIES)[number];
export const TICKET_STATUSES = ['open', 'waiting_on_user', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TICKET_PRIORITIES = ['low', 'normal', 'high'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

/** A staff reply left unanswered this long closes the ticket (19). */
export const AUTO_CLOSE_MS = 14 * 24 * 3_600_000;
/** A person's message reopens a ticket closed less than this long ago; later it is 409 `ticket_closed`. */
export const REOPEN_WINDOW_MS = 30 * 24 * 3_600_000;
