/** The Socket.IO path of every namespace (extensions-v2 8.3 and 13.4). */
export const REALTIME_PATH = '/api/v1/socket.io';

/** Client events per second one socket may send before it is disconnected with `too_many_requests` (8.3). */
export const REALTIME_EVENTS_PER_SECOND = 20;

/**
 * How often the credentials of connected sockets are checked again: a revoked session or token ends its sockets
 * within 60 s (8.3), checked every 20 s; an expired access token ends them at the first sweep past its `exp`.
 */
export const REALTIME_RECHECK_MS = 20_000;
