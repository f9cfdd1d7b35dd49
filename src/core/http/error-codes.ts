/**
 * The complete catalog of error codes the service answers with (interface-v1 section 7, extensions-v1,
 * extensions-v2 section 26.4). Each code has exactly one HTTP status. `ApiError` only accepts codes of this
 * catalog (the compiler refuses any other string) and takes the status from here, so a code can never leave
 * with two statuses. The catalog is emitted into the OpenAPI description and generated into
 * docs/error-codes.md (`npm run docs:generate`; a test fails when it drifts).
 *
 * Codes that travel in other channels (OAuth protocol errors of RFC 6749, Socket.IO acknowledgements, the tutor's
 * event stream, a report's `error_code`) are listed in their own catalogs beside the code that emits them.
 */
export interface ErrorCodeEntry {
  readonly status: number;
  /** When the code is answered (one sentence, for the docs). */
  readonly meaning: string;
}

const entry = <S extends number>(status: S, meaning: string): { readonly status: S; readonly meaning: string } => ({
  status,
  meaning,
});

export const ERROR_CODES = {
  // Generic answers of every area.
  bad_request: entry(400, 'The request is malformed in a way no more specific code describes'),
  malformed_json: entry(400, 'The request body is not valid JSON'),
  token_in_query: entry(400, 'A credential was put in the URL; send it in the Authorization header'),
  unauthorized: entry(401, 'Credential absent, invalid or expired'),
  forbidden: entry(403, 'The caller is not permitted to do this (role, ownership or credential kind)'),
  credential_read_only: entry(403, 'A write with a read-only credential (read-only token or a minor’s session)'),
  organization_suspended: entry(403, 'The organization is suspended'),
  step_up_required: entry(403, 'A sensitive action without a step-up confirmed in the last 10 minutes'),
  not_found: entry(404, 'Missing, not visible to the caller, or not a member (also a token of another organization)'),
  feature_disabled: entry(404, 'The feature is switched off for this deployment or organization'),
  push_disabled: entry(404, 'No push keys on the server'),
  method_not_allowed: entry(405, 'The path exists but not with this method'),
  not_acceptable: entry(406, 'The requested representation is not available'),
  conflict: entry(409, 'The request conflicts with the current state (a concurrent change)'),
  gone: entry(410, 'The resource existed and is gone'),
  payload_too_large: entry(413, 'The request body is too large'),
  unsupported_media_type: entry(415, 'The request body has a media type the operation does not take'),
  validation_error: entry(422, 'Invalid body or parameters; `details` names each broken rule'),
  too_many_requests: entry(429, 'Rate limited; wait `Retry-After` seconds'),
  internal_error: entry(500, 'Internal failure; logged with the request id'),
  service_unavailable: entry(503, 'A dependency (database, cache) does not respond; retry later'),

  // Identity (interface-v1 7, extensions-v1).
  invalid_otp: entry(400, 'Wrong, expired, used or exhausted email code, or no pending code (identical in every case)'),
  invalid_totp: entry(400, 'Wrong TOTP or recovery code'),
  unknown_provider: entry(400, 'Unknown external sign-in provider'),
  two_factor_required: entry(401, 'Correct first factor on an account with two-factor; no session yet'),
  sso_required: entry(403, 'The email domain enforces institutional single sign-on'),
  impersonation_restricted: entry(403, 'Not allowed while impersonating, or on an impersonation'),
  email_taken: entry(409, 'The new email belongs to another account'),
  two_factor_already_enabled: entry(409, 'Two-factor setup when it is already enabled'),
  two_factor_not_started: entry(409, 'Two-factor enable without a setup'),
  two_factor_not_enabled: entry(409, 'Recovery codes or disable without two-factor'),
  same_email: entry(422, 'The new email equals the current one'),
  adult_declaration_required: entry(422, 'Onboarding without `adult_confirmed: true`'),
  oauth_not_configured: entry(503, 'The external sign-in provider has no credentials on this deployment'),

  // Passkeys (extensions-v3 3).
  passkey_invalid: entry(
    401,
    'The passkey answer is not valid (unknown, disabled, wrong signature or a cloned counter)',
  ),
  challenge_expired: entry(401, 'The passkey challenge is missing, already used or older than 5 minutes'),
  account_suspended: entry(403, 'The account is suspended (or erased) and cannot sign in'),
  passkey_exists: entry(409, 'This passkey is already registered'),
  passkey_limit_reached: entry(409, 'The person already has 10 passkeys'),
  passkey_verification_failed: entry(
    422,
    'The registration answer failed verification (origin, RP ID, challenge, format)',
  ),

  // Tenancy.
  member_limit_reached: entry(409, 'The plan’s member limit is reached'),
  scim_token_limit_reached: entry(409, 'The organization already has 5 live SCIM tokens'),
  last_owner: entry(409, 'The change would leave the organization without an owner'),
  already_member: entry(409, 'The person is already a member of the organization'),
  slug_taken: entry(409, 'Another record already uses this slug'),
  institute_shared: entry(409, 'The institute is linked to another organization too'),
  invitation_already_accepted: entry(409, 'The invitation was already accepted'),
  invitation_expired: entry(410, 'The invitation expired'),
  import_not_finished: entry(409, 'The import report is not ready yet'),
  import_too_large: entry(413, 'The CSV file is larger than 5 MiB or has too many rows'),
  invalid_csv: entry(422, 'The CSV file cannot be read (encoding, header or quoting)'),

  // SSO.
  domain_already_added: entry(409, 'The domain is already claimed by this connection'),
  domain_taken: entry(409, 'Another organization verified this domain'),
  domain_not_verified: entry(409, 'The domain must be verified first'),
  sso_discovery_failed: entry(409, 'The identity provider’s discovery document cannot be read'),

  // Learning core.
  not_enrolled: entry(403, 'Enroll in the course first'),
  quiz_not_passed: entry(409, 'Pass the lesson quiz before completing the lesson'),
  course_empty: entry(409, 'A course without lessons cannot be published'),
  course_in_use: entry(409, 'The course has enrollments or certificates; unpublish it instead'),
  certificate_already_revoked: entry(409, 'Revoke or reissue of a revoked or replaced certificate'),
  program_not_completed: entry(409, 'The program’s requirements are unmet'),
  capstone_required: entry(409, 'The program’s capstone is pending'),
  export_too_large: entry(413, 'The export has more rows (or bytes) than its limit'),

  // Wave 2 (extensions-v2 26.4).
  invalid_signature: entry(401, 'An email-provider webhook without a valid Standard Webhooks signature or timestamp'),
  guardian_consent_required: entry(403, 'A `with_consent` operation by a minor without guardian consent'),
  minor_restricted: entry(403, 'A field or option minors may not use'),
  posting_muted: entry(403, 'A muted member posts, comments or reacts'),
  title_locked: entry(409, 'The title is not unlocked'),
  mission_not_completed: entry(409, 'The mission’s goal is not reached yet'),
  mission_already_claimed: entry(409, 'The mission was already claimed'),
  daily_reward_already_claimed: entry(409, 'The daily reward was already claimed today (local day)'),
  challenge_limit_reached: entry(409, 'The organization has 20 upcoming or active challenges'),
  challenge_started: entry(409, 'The change needs a challenge that has not started'),
  challenge_finished: entry(409, 'The challenge is finished'),
  deck_limit_reached: entry(409, 'The person has 100 personal decks in this organization'),
  deck_full: entry(409, 'The deck holds its maximum number of cards'),
  not_enough_questions: entry(409, 'Fewer than 5 questions are available for a game or duel'),
  game_not_in_progress: entry(409, 'The game is finished or abandoned'),
  question_mismatch: entry(409, 'The answer is not for the current question'),
  duel_pending_exists: entry(409, 'A pending challenge between the two already exists'),
  duel_not_pending: entry(409, 'Accept, decline or cancel of a duel that is not pending'),
  duel_in_progress: entry(409, 'The person already has a duel ready or active'),
  duel_limit_reached: entry(409, 'The person has 20 pending challenges sent'),
  opponent_unavailable: entry(409, 'The opponent cannot play (the caller, or a minor without consent)'),
  opponent_not_enrolled: entry(409, 'The opponent is not enrolled in the course'),
  exam_not_open: entry(409, 'The exam is not open for the caller now'),
  exam_session_active: entry(409, 'The caller has a session of this exam in progress'),
  exam_attempts_exhausted: entry(409, 'Every allowed attempt is used'),
  exam_session_closed: entry(409, 'The session is closed (submitted or past its deadline)'),
  exam_session_in_progress: entry(409, 'A review of a session still in progress'),
  exam_session_already_reviewed: entry(409, 'The session was already reviewed'),
  exam_in_use: entry(409, 'The exam has sessions; unpublish it instead'),
  exam_limit_reached: entry(409, 'The course has 20 exams'),
  note_version_conflict: entry(409, 'The note was saved from another device in between'),
  post_removed: entry(409, 'The post was removed by a moderator'),
  nothing_to_moderate: entry(409, 'The item has nothing to decide'),
  report_not_ready: entry(409, 'The report is not ready for download'),
  export_in_progress: entry(409, 'A data export is already being built'),
  export_not_ready: entry(409, 'The data export is not ready for download'),
  erasure_already_scheduled: entry(409, 'An erasure is already scheduled'),
  sole_owner: entry(409, 'The person is the only owner of an organization with other members'),
  age_bracket_managed: entry(409, 'The age bracket is managed by an organization'),
  not_a_minor: entry(409, 'Guardian consent applies to minors only'),
  guardian_consent_decided: entry(409, 'The guardian consent request was already decided'),
  announcement_not_dismissible: entry(409, 'The announcement cannot be dismissed'),
  announcement_already_emailed: entry(409, 'The announcement was already emailed'),
  announcement_email_limit_reached: entry(409, 'The organization already emails 3 announcements that day'),
  ticket_closed: entry(409, 'A message to a ticket closed more than 30 days ago'),
  tutor_busy: entry(409, 'The conversation is already answering'),
  proposal_not_ready: entry(409, 'The quiz proposal is not ready'),
  proposal_question_accepted: entry(409, 'A proposed question was already accepted'),
  lesson_empty: entry(409, 'The lesson has no content to draw from'),
  path_in_use: entry(409, 'The path has completions, badges or certificates; unpublish it instead'),
  deadline_exists: entry(409, 'The cohort already has a deadline for this course'),
  endpoint_limit_reached: entry(409, 'The organization has 10 webhook endpoints'),
  endpoint_disabled: entry(409, 'The webhook endpoint is disabled'),
  report_expired: entry(410, 'The report expired'),
  export_expired: entry(410, 'The data export expired'),
  guardian_consent_expired: entry(410, 'The guardian consent link expired'),
  // LTI 1.3 platform (extensions-v3 1).
  lti_tool_limit_reached: entry(409, 'The platform has 100 LTI tools'),
  lti_tool_unavailable: entry(409, 'The LTI tool, or the organization’s deployment of it, is disabled or deleted'),
  ai_quota_exceeded: entry(429, 'An AI quota is reached; `Retry-After` and `X-AI-Quota` say which and until when'),
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes answered with status `S`. */
export type CodeWithStatus<S extends number> = {
  [K in ErrorCode]: (typeof ERROR_CODES)[K]['status'] extends S ? K : never;
}[ErrorCode];

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}
