import { ApiError } from '@/core/http/api-error';
import type { ErrorDetail } from '@/core/http/api-error';
import type { ErrorCode } from '@/core/http/error-codes';

/**
 * Codes the realtime channel itself answers with (acknowledgements `{ok: false, error: {code, message}}`, the
 * `error` server event and `connect_error`). Areas add their own codes (extensions-v2 26.4: "codes inside other
 * channels"); HTTP codes of the catalog pass through unchanged.
 */
export const REALTIME_ERROR_CODES = {
  unknown_event: 'The namespace has no such client event',
  validation_error: 'The payload is not an object of the documented shape',
  too_many_requests: 'More events per second than allowed on one socket; the socket is disconnected',
  internal_error: 'Internal failure; logged',
  unauthorized: 'Credential absent, invalid or expired (handshake)',
  not_found: 'Organization absent, not a member, or a token of another organization (handshake)',
  organization_suspended: 'The organization is suspended (handshake)',
  credential_read_only: 'A read-only credential on a namespace that takes writes (handshake)',
  guardian_consent_required: 'A minor without guardian consent (handshake)',
  // The duels namespace (extensions-v2 8.3, extensions-v3 6.4); the HTTP codes it answers with pass through.
  already_queued: 'queue:join while already in a matchmaking queue',
  rate_limited: 'queue:join past 10 per minute per person, every socket together (extensions-v3 6.4)',
  duel_not_ready: 'duel:ready on a duel that is not waiting for its players (or expired)',
  round_not_started: 'duel:answer before the round started',
  round_closed: 'duel:answer after the round closed, or on a duel not being played',
  already_answered: 'duel:answer a second time in a round',
  duel_not_active: 'duel:forfeit on a duel not being played',
} as const;

/** A code of the channel, or an HTTP code of the catalog passing through. */
export type RealtimeErrorCode = keyof typeof REALTIME_ERROR_CODES | ErrorCode;

export interface RealtimeErrorBody {
  code: RealtimeErrorCode;
  message: string;
  details?: ErrorDetail[];
}

/** An error answered to a client event (or a refused handshake); `code` is the channel's, not an HTTP status. */
export class RealtimeError extends Error {
  constructor(
    readonly code: RealtimeErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'RealtimeError';
  }

  body(): RealtimeErrorBody {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

/** The error body for anything thrown by a handler: ours, an ApiError of the catalog, or an internal failure. */
export function realtimeErrorBody(err: unknown): RealtimeErrorBody | null {
  if (err instanceof RealtimeError) return err.body();
  if (err instanceof ApiError) {
    return err.details
      ? { code: err.code, message: err.message, details: err.details }
      : { code: err.code, message: err.message };
  }
  return null;
}
