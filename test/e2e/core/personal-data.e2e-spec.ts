import { randomBytes } from 'node:crypto';
import { PDFParse } from 'pdf-parse';
import type { Credential } from '@/core/auth/credential';
import { TransactionRunner } from '@/core/database/transaction';
import { collectRows, type ExportedRow, PERSONAL_COLUMN, PersonalDataRegistry } from '@/core/privacy/personal-data';
import { CertificatePdfService } from '@/modules/learning/certificates';
import { ExamAuthoringService } from '@/modules/learning/exams';
import { makeCourse, type MadeCourse, ONE_QUESTION_QUIZ } from '../../cross-tenant/learning.routes';
import { signIn, type SignedIn } from '../../support/auth';
import { downloadExport, exportOf as exportJob } from '../../support/privacy';
import { settle } from '../../support/engagement';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/** Keys an export must never carry (hashes, secrets, encrypted values, PKCE material, address fingerprints). */
const SECRET_KEY = /(hash|secret|encrypted|verifier|nonce|fingerprint|password)/i;

interface Person {
  s: SignedIn;
  id: string;
  email: string;
  name: string;
  token: string;
  /** The organization the person created. */
  ownOrg: string;
}

type Export = Record<string, ExportedRow[]>;

describe('personal-data registry (every wave-1 table: export and erasure, extensions-v2 17.3 and 17.4)', () => {
  let t: TestApp;
  let registry: PersonalDataRegistry;
  let owner: SignedIn;
  let org: string;
  let course: MadeCourse;
  let courseCardId: string;
  let programId: string;
  let a: Person;
  let b: Person;

  const orgUrl = (path: string): string => `/api/v1/organizations/${org}${path}`;

  async function exportOf(userId: string): Promise<Export> {
    const out: Export = {};
    for (const h of registry.handlers()) {
      out[`${h.area}.${h.key}`] = await collectRows(h.handler.export(userId, t.db.manager));
    }
    return out;
  }

  async function erase(userId: string, keepCertificateNames = false): Promise<void> {
    await t.app.get(TransactionRunner).run(async (tx) => {
      for (const h of registry.handlers()) {
        await h.handler.erase({ userId, tx, now: t.clock.now(), keepCertificateNames });
      }
    });
  }

  /** The rows of every wave-1 table that hold the person, per table (by the ids and address they had). */
  async function footprint(p: Person, sessionIds: string[], invitationIds: string[], grantIds: string[]) {
    const [row] = await t.db.query(
      `SELECT
        (SELECT count(*)::int FROM users WHERE id = $1 AND email = $2) AS users,
        (SELECT count(*)::int FROM sessions WHERE user_id = $1 OR impersonator_id = $1) AS sessions,
        (SELECT count(*)::int FROM refresh_tokens WHERE session_id = ANY($3::uuid[])) AS refresh_tokens,
        (SELECT count(*)::int FROM email_codes WHERE (purpose = 'sign_in' AND subject = $2)
           OR (purpose = 'email_change' AND subject = $1::text) OR (purpose = 'step_up' AND subject = ANY($3::text[]))
           OR (purpose = 'invitation' AND subject = ANY($4::text[]))) AS email_codes,
        (SELECT count(*)::int FROM auth_challenges WHERE user_id = $1) AS auth_challenges,
        (SELECT count(*)::int FROM recovery_codes WHERE user_id = $1) AS recovery_codes,
        (SELECT count(*)::int FROM passkeys WHERE user_id = $1) AS passkeys,
        (SELECT count(*)::int FROM passkey_challenges WHERE user_id = $1) AS passkey_challenges,
        (SELECT count(*)::int FROM consents WHERE user_id = $1) AS consents,
        (SELECT count(*)::int FROM api_keys WHERE user_id = $1) AS api_keys,
        (SELECT count(*)::int FROM external_identities WHERE user_id = $1) AS external_identities,
        (SELECT count(*)::int FROM sign_in_states WHERE created_by = $1) AS sign_in_states,
        (SELECT count(*)::int FROM oauth_grants WHERE user_id = $1) AS oauth_grants,
        (SELECT count(*)::int FROM oauth_codes WHERE grant_id = ANY($5::uuid[])) AS oauth_codes,
        (SELECT count(*)::int FROM oauth_access_tokens WHERE user_id = $1) AS oauth_access_tokens,
        (SELECT count(*)::int FROM oauth_refresh_tokens WHERE grant_id = ANY($5::uuid[])) AS oauth_refresh_tokens,
        (SELECT count(*)::int FROM oauth_authorization_requests WHERE user_id = $1) AS oauth_authorization_requests,
        (SELECT count(*)::int FROM memberships WHERE user_id = $1) AS memberships,
        (SELECT count(*)::int FROM cohort_members WHERE user_id = $1) AS cohort_members,
        (SELECT count(*)::int FROM invitations WHERE email = $2 OR accepted_by = $1) AS invitations_received,
        (SELECT count(*)::int FROM invitations WHERE invited_by = $1) AS invitations_sent,
        (SELECT count(*)::int FROM member_imports WHERE created_by = $1) AS member_imports,
        (SELECT count(*)::int FROM member_import_rows WHERE lower(btrim(email)) = $2) AS member_import_rows,
        (SELECT count(*)::int FROM enrollments WHERE user_id = $1) AS enrollments,
        (SELECT count(*)::int FROM lesson_completions WHERE user_id = $1) AS lesson_completions,
        (SELECT count(*)::int FROM quiz_submissions WHERE user_id = $1) AS quiz_submissions,
        (SELECT count(*)::int FROM course_ratings WHERE user_id = $1) AS course_ratings,
        (SELECT count(*)::int FROM capstone_submissions WHERE user_id = $1) AS capstone_submissions,
        (SELECT count(*)::int FROM capstone_submissions WHERE graded_by = $1) AS capstones_graded,
        (SELECT count(*)::int FROM program_completions WHERE user_id = $1) AS program_completions,
        (SELECT count(*)::int FROM badge_awards WHERE user_id = $1) AS badge_awards,
        (SELECT count(*)::int FROM issued_certificates WHERE user_id = $1 AND holder_name IS NOT NULL) AS named_certificates,
        (SELECT count(*)::int FROM organizations WHERE created_by = $1) AS organizations_created,
        (SELECT count(*)::int FROM courses WHERE created_by = $1) AS courses_created,
        (SELECT count(*)::int FROM learning_paths WHERE created_by = $1) AS paths_created,
        (SELECT count(*)::int FROM sso_connections WHERE created_by = $1) AS sso_connections_created,
        (SELECT count(*)::int FROM scim_tokens WHERE created_by = $1) AS scim_tokens_created,
        (SELECT count(*)::int FROM scim_members WHERE user_id = $1) AS scim_members,
        (SELECT count(*)::int FROM announcements WHERE created_by = $1) AS announcements_written,
        (SELECT count(*)::int FROM announcement_dismissals WHERE user_id = $1) AS announcement_dismissals,
        (SELECT count(*)::int FROM webhook_endpoints WHERE created_by = $1) AS webhook_endpoints_created,
        (SELECT count(*)::int FROM webhook_deliveries WHERE data ->> 'user_id' = $1::text) AS webhook_deliveries,
        (SELECT count(*)::int FROM calendar_feeds WHERE user_id = $1) AS calendar_feeds,
        (SELECT count(*)::int FROM cohort_deadlines WHERE created_by = $1) AS cohort_deadlines_set,
        (SELECT count(*)::int FROM tutor_conversations WHERE user_id = $1) AS tutor_conversations,
        (SELECT count(*)::int FROM tutor_messages m JOIN tutor_conversations c ON c.id = m.conversation_id
          WHERE c.user_id = $1) AS tutor_messages,
        (SELECT count(*)::int FROM ai_usage WHERE user_id = $1) AS ai_usage_named,
        (SELECT count(*)::int FROM quiz_proposals WHERE created_by = $1) AS quiz_proposals_created,
        (SELECT count(*)::int FROM issued_certificates WHERE user_id = $1) AS certificates_kept,
        (SELECT count(*)::int FROM exam_sessions WHERE user_id = $1) AS exam_sessions,
        (SELECT count(*)::int FROM exam_session_questions q JOIN exam_sessions s ON s.id = q.session_id
           WHERE s.user_id = $1) AS exam_session_questions,
        (SELECT count(*)::int FROM exam_answers x JOIN exam_sessions s ON s.id = x.session_id WHERE s.user_id = $1) AS exam_answers,
        (SELECT count(*)::int FROM exam_proctoring_events e JOIN exam_sessions s ON s.id = e.session_id
           WHERE s.user_id = $1) AS exam_proctoring_events,
        (SELECT count(*)::int FROM exam_windows WHERE created_by = $1) AS exam_windows_opened,
        (SELECT count(*)::int FROM exam_sessions WHERE reviewed_by = $1) AS exam_sessions_reviewed,
        (SELECT count(*)::int FROM reports WHERE requested_by = $1) AS reports_requested,
        (SELECT count(*)::int FROM support_tickets WHERE user_id = $1) AS support_tickets,
        (SELECT count(*)::int FROM support_messages WHERE author_id = $1) AS support_messages_written,
        (SELECT count(*)::int FROM contact_requests WHERE lower(email) = $2) AS contact_requests,
        (SELECT count(*)::int FROM learning_activity_hourly WHERE user_id = $1) AS learning_activity,
        (SELECT count(*)::int FROM platform_settings WHERE updated_by = $1) AS platform_settings_saved,
        (SELECT count(*)::int FROM privacy_exports WHERE user_id = $1) AS privacy_exports,
        (SELECT count(*)::int FROM account_erasures WHERE user_id = $1) AS erasure_requests,
        (SELECT count(*)::int FROM guardian_consents WHERE user_id = $1) AS guardian_consents,
        (SELECT count(*)::int FROM guardian_attestations WHERE user_id = $1) AS guardian_attestations,
        (SELECT count(*)::int FROM flashcard_decks WHERE user_id = $1) AS flashcard_decks,
        (SELECT count(*)::int FROM flashcard_states WHERE user_id = $1) AS flashcard_states,
        (SELECT count(*)::int FROM flashcard_reviews WHERE user_id = $1) AS flashcard_reviews,
        (SELECT count(*)::int FROM flashcard_settings WHERE user_id = $1) AS flashcard_settings,
        (SELECT count(*)::int FROM lesson_notes WHERE user_id = $1) AS lesson_notes,
        (SELECT count(*)::int FROM games WHERE user_id = $1) AS games,
        (SELECT count(*)::int FROM game_questions q JOIN games g ON g.id = q.game_id WHERE g.user_id = $1) AS game_questions,
        (SELECT count(*)::int FROM duels WHERE challenger_id = $1 OR opponent_id = $1) AS duels_played,
        (SELECT count(*)::int FROM xp_ledger WHERE user_id = $1) AS xp_ledger,
        (SELECT count(*)::int FROM xp_totals WHERE user_id = $1) AS xp_totals,
        (SELECT count(*)::int FROM activity_days WHERE user_id = $1) AS activity_days,
        (SELECT count(*)::int FROM engagement_facts WHERE user_id = $1) AS engagement_facts,
        (SELECT count(*)::int FROM streaks WHERE user_id = $1) AS streaks,
        (SELECT count(*)::int FROM streak_frozen_days WHERE user_id = $1) AS streak_frozen_days,
        (SELECT count(*)::int FROM goals WHERE user_id = $1) AS goals,
        (SELECT count(*)::int FROM daily_reward_claims WHERE user_id = $1) AS daily_reward_claims,
        (SELECT count(*)::int FROM mission_claims WHERE user_id = $1) AS mission_claims,
        (SELECT count(*)::int FROM member_titles WHERE user_id = $1) AS member_titles,
        (SELECT count(*)::int FROM challenges WHERE created_by = $1) AS challenges_created,
        (SELECT count(*)::int FROM challenge_participants WHERE user_id = $1) AS challenge_participants,
        (SELECT count(*)::int FROM challenge_results WHERE user_id = $1) AS challenge_results_named,
        (SELECT count(*)::int FROM feed_items WHERE user_id = $1) AS feed_items,
        (SELECT count(*)::int FROM feed_comments WHERE user_id = $1) AS feed_comments,
        (SELECT count(*)::int FROM feed_reactions WHERE user_id = $1) AS feed_reactions,
        (SELECT count(*)::int FROM feed_reports WHERE user_id = $1) AS feed_reports,
        (SELECT count(*)::int FROM feed_counts WHERE user_id = $1) AS feed_counts,
        (SELECT count(*)::int FROM member_mutes WHERE user_id = $1) AS member_mutes,
        (SELECT count(*)::int FROM audit_log WHERE actor_id = $1) AS audit_kept`,
      [p.id, p.email, sessionIds, invitationIds, grantIds],
    );
    return row as Record<string, number>;
  }

  async function idsOf(p: Person): Promise<{ sessions: string[]; invitations: string[]; grants: string[] }> {
    const col = async (sql: string, params: unknown[]) =>
      (await t.db.query<{ id: string }[]>(sql, params)).map((r) => r.id);
    return {
      sessions: await col(`SELECT id FROM sessions WHERE user_id = $1 OR impersonator_id = $1`, [p.id]),
      invitations: await col(`SELECT id FROM invitations WHERE email = $1`, [p.email]),
      grants: await col(`SELECT id FROM oauth_grants WHERE user_id = $1`, [p.id]),
    };
  }

  /** Someone with data in every wave-1 table that can hold a person. */
  async function person(name: string, clientId: string, otherOrg: string): Promise<Person> {
    const s = await adult(t);
    const id = s.user.id;
    await s.agent
      .patch('/api/v1/me/profile')
      .send({ name, headline: `${name} headline`, bio: 'Bio', location: 'Somewhere', public_profile: true })
      .expect(200);
    // Joins the organization by an accepted invitation, as an admin (so they can grade and invite).
    const invitation = await owner.agent
      .post(orgUrl('/members/invite'))
      .send({ email: s.email, role: 'admin' })
      .expect(201);
    await s.agent.post('/api/v1/invitations/accept').send({ invitation_id: invitation.body.id }).expect(200);
    // An announcement they wrote as an admin, and their dismissal of it (extensions-v2 18).
    const written = await s.agent
      .post(orgUrl('/announcements'))
      .send({ translations: { es: { title: `Aviso de ${name}`, body_md: 'Texto' } } })
      .expect(201);
    await s.agent.post(`/api/v1/announcements/${written.body.id}/dismiss`).expect(204);
    // A report they requested, a support ticket they opened, a staff reply they wrote on someone else's ticket,
    // a contact request from their address, and an hour of learning activity (issue 17).
    await s.agent.post(orgUrl('/reports')).send({ type: 'certificates', format: 'csv' }).expect(202);
    await s.agent
      .post('/api/v1/support/tickets')
      .send({ subject: `Help ${name}`, body: 'Please', category: 'other' })
      .expect(201);
    const [othersTicket] = await t.db.query(
      `INSERT INTO support_tickets (user_id, subject, category, created_at, updated_at, last_message_at)
       VALUES ($1, 'Someone else', 'other', now(), now(), now()) RETURNING id`,
      [owner.user.id],
    );
    await t.db.query(
      `INSERT INTO support_messages (ticket_id, author_kind, author_id, body, created_at) VALUES ($1, 'staff', $2, 'Answer', now())`,
      [othersTicket.id, id],
    );
    await t.db.query(
      `INSERT INTO contact_requests (kind, name, email, message, created_at) VALUES ('contact', $1, $2, 'Hello there', now())`,
      [name, s.email],
    );
    await t.db.query(
      `INSERT INTO platform_settings (key, value, updated_by, updated_at) VALUES ($1, '{}'::jsonb, $2, now())`,
      [`fixture:${id}`, id],
    );
    await t.db.query(
      `INSERT INTO learning_activity_hourly (organization_id, user_id, hour, lessons_completed) VALUES ($1, $2, '2020-01-01T00:00:00Z', 1)`,
      [org, id],
    );
    // Notification preferences and a native push device (extensions-v2 13); the inbox fills from course completion.
    await s.agent
      .patch('/api/v1/me/notification-preferences')
      .send({ quiet_hours: { enabled: true } })
      .expect(200);
    await s.agent
      .post('/api/v1/push/devices')
      .send({ platform: 'android', token: `device-of-${name}` })
      .expect(201);
    const ownOrg = await createOrganization(t, s, `Org of ${name}`);
    // A calendar feed, and a deadline they set for a cohort as an admin (extensions-v2 25.2).
    await s.agent.post('/api/v1/me/calendar-feed').expect(201);
    const [deadlineCohort] = await t.db.query(
      `INSERT INTO cohorts (organization_id, name) VALUES ($1, $2) RETURNING id`,
      [org, `Cohort of ${name}`],
    );
    await t.db.query(
      `INSERT INTO cohort_deadlines (organization_id, cohort_id, course_id, title, due_at, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, 'Due', now() + interval '7 days', $4, now(), now())`,
      [org, deadlineCohort.id, course.id, id],
    );
    // A webhook endpoint they set up as an admin, and a delivery of an event about them (extensions-v2 25.3).
    const [endpoint] = await t.db.query(
      `INSERT INTO webhook_endpoints (organization_id, url, events, secret_sealed, created_by, created_at, updated_at)
       VALUES ($1, 'https://hooks.example.com/x', '{member.joined}', 'sealed', $2, now(), now()) RETURNING id`,
      [org, id],
    );
    await t.db.query(
      `INSERT INTO webhook_deliveries (organization_id, endpoint_id, event_id, event_type, occurred_at, data, created_at)
       VALUES ($1, $2, gen_random_uuid(), 'member.joined', now(), $3, now())`,
      [org, endpoint.id, JSON.stringify({ user_id: id, role: 'admin' })],
    );
    // An LTI tool and a dynamic registration they set up as a platform admin; a launch and a result of theirs.
    const [ltiTool] = await t.db.query(
      `INSERT INTO lti_tools (name, initiate_login_url, redirect_uris, target_link_uri, jwks_url, registered_by,
         created_by, created_at, updated_at)
       VALUES ($1, 'https://tool.example/login', '{https://tool.example/}', 'https://tool.example/',
         'https://tool.example/keys', 'manual', $2, now(), now()) RETURNING id`,
      [`Tool of ${name}`, id],
    );
    await t.db.query(
      `INSERT INTO lti_registrations (token_hash, initiation_url, expires_at, created_by, created_at)
       VALUES ($1, 'https://tool.example/register', now(), $2, now())`,
      [`registration-${id}`, id],
    );
    await t.db.query(
      `INSERT INTO lti_launches (tool_id, organization_id, user_id, message_type, at)
       VALUES ($1, $2, $3, 'LtiResourceLinkRequest', now())`,
      [ltiTool.id, org, id],
    );
    const [ltiContext] = await t.db.query(
      `INSERT INTO lti_contexts (organization_id, course_id) VALUES ($1, $2)
       ON CONFLICT (organization_id, course_id) DO UPDATE SET course_id = EXCLUDED.course_id RETURNING id`,
      [org, course.id],
    );
    const [ltiItem] = await t.db.query(
      `INSERT INTO lti_line_items (tool_id, context_id, organization_id, label, score_maximum, created_at)
       VALUES ($1, $2, $3, 'Lab', 10, now()) RETURNING id`,
      [ltiTool.id, ltiContext.id, org],
    );
    await t.db.query(
      `INSERT INTO lti_results (line_item_id, user_id, organization_id, score_given, score_maximum, activity_progress,
         grading_progress, timestamp, updated_at)
       VALUES ($1, $2, $3, 7, 10, 'Completed', 'FullyGraded', now(), now())`,
      [ltiItem.id, id, org],
    );
    const token = await personalToken(t, s, org, 'read');
    // A pending invitation from another organization, with its email code.
    const pending = await t.db.query(
      `INSERT INTO invitations (organization_id, email, role, token_hash, expires_at)
       VALUES ($1, $2, 'student', $3, now() + interval '7 days') RETURNING id`,
      [otherOrg, s.email, `invite-hash-${id}`],
    );
    await t.db.query(
      `INSERT INTO email_codes (purpose, subject, code_hash, expires_at) VALUES ('invitation', $1, $2, now() + interval '10 minutes')`,
      [pending[0].id, `invite-code-hash-${id}`],
    );
    // Learning: enrollment, quiz, completions (course certificate), rating.
    await s.agent.post(orgUrl(`/courses/${course.id}/enroll`)).expect(201);
    const q = course.lessons[1].quiz!.questions[0];
    await s.agent
      .post(orgUrl(`/courses/${course.id}/lessons/${course.lessons[1].id}/quiz/submissions`))
      .send({ answers: [{ question_id: q.id, option_ids: [q.options.find((o) => o.correct)!.id] }] })
      .expect(201);
    for (const lesson of course.lessons) {
      await s.agent.post(orgUrl(`/courses/${course.id}/lessons/${lesson.id}/complete`)).expect(200);
    }
    await s.agent
      .post(orgUrl(`/courses/${course.id}/ratings`))
      .send({ stars: 4, comment: `From ${name}` })
      .expect(200);
    // A tutor conversation with a question and its answer (metered), and a quiz proposal they asked for.
    const conversation = await s.agent.post(orgUrl('/tutor/conversations')).send({ course_id: course.id }).expect(201);
    await s.agent
      .post(orgUrl(`/tutor/conversations/${conversation.body.id}/messages`))
      .send({ content: `What does ${name} need to know?` })
      .expect(200);
    await t.db.query(
      `INSERT INTO quiz_proposals (course_id, lesson_id, status, count, kinds, created_by, created_at)
       VALUES ($1, $2, 'queued', 3, '{single}', $3, now())`,
      [course.id, course.lessons[0].id, id],
    );
    // Practice (extensions-v2 6, 7, 10): a personal deck with a card, reviews of it and of a course card, the
    // settings, a note, a game with an answered question.
    const deck = await s.agent
      .post(orgUrl('/flashcards/decks'))
      .send({ title: `Deck of ${name}` })
      .expect(201);
    const card = await s.agent
      .post(orgUrl(`/flashcards/decks/${deck.body.id}/cards`))
      .send({ front_md: `Front by ${name}`, back_md: 'Back' })
      .expect(201);
    await s.agent
      .post(orgUrl(`/flashcards/cards/${card.body.id}/reviews`))
      .send({ grade: 4 })
      .expect(201);
    await s.agent
      .post(orgUrl(`/flashcards/cards/${courseCardId}/reviews`))
      .send({ grade: 3 })
      .expect(201);
    await s.agent.put('/api/v1/me/flashcards/settings').send({ new_cards_per_day: 30 }).expect(200);
    await s.agent
      .put(orgUrl(`/courses/${course.id}/lessons/${course.lessons[0].id}/note`))
      .send({ content_md: `Note of ${name}` })
      .expect(200);
    const [game] = await t.db.query(
      `INSERT INTO games (organization_id, user_id, mode, status, score, lives, questions_total, questions_answered,
         correct_answers, started_at, touched_at, finished_at, end_reason)
       VALUES ($1, $2, 'survival', 'finished', 10, 2, 1, 1, 1, now(), now(), now(), 'questions_exhausted') RETURNING id`,
      [org, id],
    );
    await t.db.query(
      `INSERT INTO game_questions (game_id, number, question_id, question, served_at, deadline_at, answered_at, option_ids,
         correct, timed_out, points_delta)
       VALUES ($1, 1, $2, '{"prompt": "Pick A"}', now(), now(), now(), '{}', true, false, 10)`,
      [game.id, course.lessons[1].quiz!.questions[0].id],
    );
    // A course and a path of the shared catalog they authored.
    await makeCourse(t, id, { title: `Course by ${name}`, publish: false });
    await t.db.query(`INSERT INTO learning_paths (slug, title, kind, created_by) VALUES ($1, $2, 'path', $3)`, [
      `path-${randomBytes(5).toString('hex')}`,
      `Path by ${name}`,
      id,
    ]);
    // Someone they invited.
    await s.agent
      .post(orgUrl('/members/invite'))
      .send({ email: t.nextEmail('guest'), role: 'student' })
      .expect(201);
    // Two-factor data, an email change in progress, a challenge, a linked identity, a sign-in start, an SSO
    // connection they set up, an import they ran, a session opened as someone else.
    await t.db.query(`UPDATE users SET two_factor_secret = $2, two_factor_enabled_at = now() WHERE id = $1`, [
      id,
      `TOTPSECRET${id.slice(0, 8)}`,
    ]);
    await t.db.query(`INSERT INTO recovery_codes (user_id, code_hash) VALUES ($1, $2), ($1, $3)`, [
      id,
      `recovery-hash-1-${id}`,
      `recovery-hash-2-${id}`,
    ]);
    await t.db.query(
      `INSERT INTO email_codes (purpose, subject, code_hash, expires_at, metadata)
       VALUES ('email_change', $1, $2, now() + interval '10 minutes', $3)`,
      [id, `change-hash-${id}`, JSON.stringify({ email: `new.${s.email}` })],
    );
    await t.db.query(
      `INSERT INTO auth_challenges (user_id, kind, token_hash, expires_at) VALUES ($1, 'two_factor', $2, now() + interval '5 minutes')`,
      [id, `challenge-hash-${id}`],
    );
    await t.db.query(
      `INSERT INTO passkeys (user_id, credential_id, public_key, name, device_type, backed_up, transports, created_at)
       VALUES ($1, $2, $3, 'Laptop', 'multi_device', true, '{internal}', now())`,
      [id, `credential-${id}`, Buffer.from(`public-key-${id}`)],
    );
    await t.db.query(
      `INSERT INTO passkey_challenges (purpose, challenge, user_id, binding, created_at, expires_at)
       VALUES ('registration', $2, $1, NULL, now(), now() + interval '5 minutes')`,
      [id, `passkey-challenge-${id}`],
    );
    await t.db.query(
      `INSERT INTO external_identities (user_id, issuer, subject, provider) VALUES ($1, 'https://accounts.google.com', $2, 'google')`,
      [id, `google-sub-${id}`],
    );
    await t.db.query(
      `INSERT INTO sign_in_states (state_hash, kind, provider, nonce, code_verifier_encrypted, created_by, created_at, expires_at)
       VALUES ($1, 'provider', 'google', $2, $3, $4, now(), now() + interval '10 minutes')`,
      [`state-hash-${id}`, `nonce-${id}`, `verifier-encrypted-${id}`, id],
    );
    await t.db.query(
      `INSERT INTO sso_connections (organization_id, name, issuer, client_id, client_secret_encrypted, created_by)
       VALUES ($1, $2, 'https://idp.example.test', 'client', $3, $4)`,
      [org, `SSO by ${name}`, `sso-secret-encrypted-${id}`, id],
    );
    // A SCIM token they created as an admin, and what the organization's directory says about them (issue 27).
    await t.db.query(
      `INSERT INTO scim_tokens (organization_id, description, default_role, token_hash, created_by)
       VALUES ($1, $2, 'student', $3, $4)`,
      [org, `SCIM by ${name}`, `scim-hash-${id}`, id],
    );
    await t.db.query(
      `INSERT INTO scim_members (organization_id, user_id, user_name, external_id, given_name, directory, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, '{"department": "Registry"}', now(), now())`,
      [org, id, s.email.toLowerCase(), `ext-${id}`, name],
    );
    const [imp] = await t.db.query(
      `INSERT INTO member_imports (organization_id, created_by, status, total) VALUES ($1, $2, 'completed', 1) RETURNING id`,
      [org, id],
    );
    await t.db.query(
      `INSERT INTO member_import_rows (import_id, row_number, email, outcome) VALUES ($1, 1, $2, 'invited')`,
      [imp.id, t.nextEmail('imported')],
    );
    await t.db.query(
      `INSERT INTO sessions (user_id, device, created_at, last_seen_at, expires_at, impersonator_id, impersonation_expires_at)
       VALUES ($1, 'Support tool', now(), now(), now() + interval '1 hour', $2, now() + interval '1 hour')`,
      [owner.user.id, id],
    );
    // An OAuth grant with a code, an access and a refresh token, and a pending authorization request.
    const sessionId = (await t.db.query(`SELECT id FROM sessions WHERE user_id = $1 LIMIT 1`, [id]))[0].id;
    const [grant] = await t.db.query(
      `INSERT INTO oauth_grants (user_id, client_id, organization_id, access, scope, resource, created_at)
       VALUES ($1, $2, $3, 'read', 'mcp:read', 'https://api.test/mcp', now()) RETURNING id`,
      [id, clientId, org],
    );
    await t.db.query(
      `INSERT INTO oauth_codes (code_hash, grant_id, organization_id, client_id, redirect_uri, code_challenge, scope, resource, created_at, expires_at)
       VALUES ($1, $2, $4, $3, 'https://tool.test/cb', 'challenge', 'mcp:read', 'https://api.test/mcp', now(), now() + interval '1 minute')`,
      [`oauth-code-hash-${id}`, grant.id, clientId, org],
    );
    await t.db.query(
      `INSERT INTO oauth_access_tokens (token_hash, grant_id, user_id, organization_id, access, scope, resource, created_at, expires_at)
       VALUES ($1, $2, $3, $4, 'read', 'mcp:read', 'https://api.test/mcp', now(), now() + interval '1 hour')`,
      [`oauth-access-hash-${id}`, grant.id, id, org],
    );
    await t.db.query(
      `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, organization_id, created_at, expires_at) VALUES ($1, $2, $3, now(), now() + interval '30 days')`,
      [`oauth-refresh-hash-${id}`, grant.id, org],
    );
    await t.db.query(
      `INSERT INTO oauth_authorization_requests (client_id, user_id, session_id, redirect_uri, code_challenge, scope, resource, created_at, expires_at)
       VALUES ($1, $2, $3, 'https://tool.test/cb', 'challenge', 'mcp:read', 'https://api.test/mcp', now(), now() + interval '10 minutes')`,
      [clientId, id, sessionId],
    );
    // Privacy: a failed export, a cancelled erasure request, a denied guardian request and an attestation about them.
    await t.db.query(`INSERT INTO privacy_exports (user_id, status, created_at) VALUES ($1, 'failed', now())`, [id]);
    await t.db.query(
      `INSERT INTO account_erasures (user_id, status, requested_at, scheduled_for, cancelled_at)
       VALUES ($1, 'cancelled', now(), now() + interval '14 days', now())`,
      [id],
    );
    await t.db.query(
      `INSERT INTO guardian_consents (user_id, guardian_email, status, token_hash, expires_at, requested_at, decided_at)
       VALUES ($1, $2, 'denied', $3, now() + interval '7 days', now(), now())`,
      [id, t.nextEmail('guardian'), `guardian-hash-${id}`],
    );
    await t.db.query(
      `INSERT INTO guardian_attestations (organization_id, user_id, reason, attested_by, attested_at)
       VALUES ($1, $2, 'Forms on file', $3, now())`,
      [org, id, owner.user.id],
    );
    return { s, id, email: s.email, name, token, ownOrg };
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'editor@platform.test' } });
    registry = t.app.get(PersonalDataRegistry);
    const editor = await signIn(t, 'editor@platform.test');
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Registry Org');
    const otherOwner = await adult(t);
    const otherOrg = await createOrganization(t, otherOwner, 'Other Org');
    course = await makeCourse(t, editor.user.id, {
      title: 'Registry course',
      issues_certificate: true,
      lessons: [{ title: 'Read' }, { title: 'Quiz', quiz: ONE_QUESTION_QUIZ }],
    });
    courseCardId = (
      await editor.agent
        .post(`/api/v1/editor/courses/${course.id}/flashcards`)
        .send({ front_md: 'Course card', back_md: 'Back' })
        .expect(201)
    ).body.id;
    const program = await editor.agent
      .post('/api/v1/editor/paths')
      .send({
        slug: `registry-${randomBytes(4).toString('hex')}`,
        title: 'Registry program',
        kind: 'program',
        status: 'published',
        courses: [{ course_id: course.id }],
        capstone: { title: 'Final', instructions_md: 'Do it', passing_score: 50 },
        issues_certificate: true,
        badge: { name: 'Registry badge', icon: 'star' },
      })
      .expect(201);
    programId = program.body.id;
    const [client] = await t.db.query(
      `INSERT INTO oauth_clients (client_name, redirect_uris, grant_types, response_types, token_endpoint_auth_method, scope)
       VALUES ('Remote tool', '{https://tool.test/cb}', '{authorization_code,refresh_token}', '{code}', 'none', 'mcp:read')
       RETURNING id`,
    );
    a = await person('Alice Erasable', client.id, otherOrg);
    b = await person('Bruno Keeper', client.id, otherOrg);
    // Cohort places, and each grades the other's capstone before both claim the program.
    const cohort = await owner.agent.post(orgUrl('/cohorts')).send({ name: 'Registry cohort' }).expect(201);
    for (const [p, role] of [
      [a, 'teacher'],
      [b, 'student'],
    ] as const) {
      await owner.agent
        .post(orgUrl(`/cohorts/${cohort.body.id}/members`))
        .send({ user_id: p.id, role })
        .expect(201);
    }
    const programUrl = orgUrl(`/programs/${programId}`);
    const submissions: Record<string, string> = {};
    for (const p of [a, b]) {
      const sub = await p.s.agent
        .post(`${programUrl}/capstone/submissions`)
        .send({ content_md: `Work of ${p.name}` })
        .expect(201);
      submissions[p.id] = sub.body.id;
    }
    await a.s.agent
      .post(`${programUrl}/capstone/submissions/${submissions[b.id]}/grade`)
      .send({ score: 90 })
      .expect(200);
    await b.s.agent
      .post(`${programUrl}/capstone/submissions/${submissions[a.id]}/grade`)
      .send({ score: 80 })
      .expect(200);
    for (const p of [a, b]) await p.s.agent.post(`${programUrl}/credential`).expect(200);
    // Exams: each opens a window and sits the course's exam (an answer, a proctoring event); A reviews B's session
    // and B the owner's (so that erasing A leaves everything of B's, its export included, as it was).
    const exam = await t.app.get(ExamAuthoringService).create(
      course.id,
      {
        title: 'Registry exam',
        duration_minutes: 30,
        passing_score: 50,
        questions_per_attempt: 1,
        status: 'published',
        questions: ONE_QUESTION_QUIZ.questions,
      },
      editor.user.id,
    );
    const examUrl = orgUrl(`/exams/${exam.id}`);
    await owner.agent.post(orgUrl(`/courses/${course.id}/enroll`)).expect(201);
    const examSessions: Record<string, string> = {};
    for (const p of [a.s, b.s, owner]) {
      if (p !== owner) {
        await p.agent
          .post(`${examUrl}/windows`)
          .send({ opens_at: new Date(t.clock.nowMs() - 60_000).toISOString() })
          .expect(201);
      }
      const started = (await p.agent.post(`${examUrl}/sessions`).expect(201)).body;
      examSessions[p.user.id] = started.id;
      const question = started.questions[0];
      await p.agent
        .put(`${examUrl}/sessions/${started.id}/answers/${question.id}`)
        .send({ option_ids: [question.options[0].id], seq: 1 })
        .expect(200);
      await p.agent
        .post(`${examUrl}/sessions/${started.id}/events`)
        .send({ events: [{ type: 'focus_lost', occurred_at: new Date().toISOString() }] })
        .expect(202);
      await p.agent.post(`${examUrl}/sessions/${started.id}/submit`).expect(200);
    }
    await a.s.agent
      .post(`${examUrl}/sessions/${examSessions[b.id]}/review`)
      .send({ decision: 'accept', reason: 'Checked' })
      .expect(200);
    await b.s.agent
      .post(`${examUrl}/sessions/${examSessions[owner.user.id]}/review`)
      .send({ decision: 'accept', reason: 'Checked' })
      .expect(200);
    // Duels: A beat B (one scored round), B challenged the owner (kept whole when A is erased).
    const [duel] = await t.db.query(
      `INSERT INTO duels (organization_id, origin, status, challenger_id, opponent_id, questions, created_at, expires_at,
         started_at, finished_at, challenger_score, opponent_score, winner, result_reason)
       VALUES ($1, 'challenge', 'finished', $2, $3, '[]', now(), now(), now(), now(), 140, 0, 'challenger', 'completed')
       RETURNING id`,
      [org, a.id, b.id],
    );
    await t.db.query(
      `INSERT INTO duel_rounds (duel_id, round, question_id, challenger_option_ids, challenger_correct, challenger_points,
         challenger_answer_ms, opponent_option_ids, scored_at)
       VALUES ($1, 1, gen_random_uuid(), ARRAY[gen_random_uuid()], true, 140, 3000, ARRAY[gen_random_uuid()], now())`,
      [duel.id],
    );
    await t.db.query(
      `INSERT INTO duels (organization_id, origin, status, challenger_id, opponent_id, questions, created_at, expires_at)
       VALUES ($1, 'challenge', 'pending', $2, $3, '[]', now(), now() + interval '1 day')`,
      [org, b.id, owner.user.id],
    );
    // Social: each posts, comments on the owner's post, reacts to it and reports it; then each is muted.
    const ownerPost = (await owner.agent.post(orgUrl('/posts')).send({ body_md: 'Owner post' }).expect(201)).body;
    for (const p of [a, b]) {
      await p.s.agent
        .post(orgUrl('/posts'))
        .send({ body_md: `${p.name} posts` })
        .expect(201);
      await p.s.agent
        .post(orgUrl(`/posts/${ownerPost.id}/comments`))
        .send({ body_md: 'A comment' })
        .expect(201);
      await p.s.agent.put(orgUrl(`/feed/${ownerPost.id}/reactions/like`)).expect(200);
      await p.s.agent
        .post(orgUrl(`/posts/${ownerPost.id}/reports`))
        .send({ reason: 'other' })
        .expect(201);
      // Written directly: they may hold a role that cannot be muted through the route.
      await t.db.query(
        `INSERT INTO member_mutes (organization_id, user_id, until, reason, muted_by, created_at)
         VALUES ($1, $2, now() + interval '1 day', 'Quiet', $3, now())`,
        [org, p.id, owner.user.id],
      );
    }
    // Rows of imports that named each of them (as typed in a file: spaces and capitals).
    const [imp] = await t.db.query(
      `INSERT INTO member_imports (organization_id, created_by, status, total) VALUES ($1, $2, 'completed', 2) RETURNING id`,
      [org, owner.user.id],
    );
    await t.db.query(
      `INSERT INTO member_import_rows (import_id, row_number, email, name, outcome, reason)
       VALUES ($1, 1, $2, 'Alice E.', 'skipped', 'Already a member.'), ($1, 2, $3, 'Bruno K.', 'skipped', 'Already a member.')`,
      [imp.id, ` ${a.email.toUpperCase()} `, b.email],
    );
    // Engagement: XP, activity and streaks come from the learning events above; the rest by their own writes.
    await settle(t);
    for (const p of [a, b]) {
      await t.db.query(`INSERT INTO streak_frozen_days (user_id, local_date) VALUES ($1, '2026-01-01')`, [p.id]);
      await t.db.query(`INSERT INTO goals (user_id, daily_xp, updated_at) VALUES ($1, 20, now())`, [p.id]);
      await t.db.query(
        `INSERT INTO daily_reward_claims (organization_id, user_id, local_date, consecutive_days, amount, claimed_at)
         VALUES ($1, $2, '2026-01-01', 1, 5, now())`,
        [org, p.id],
      );
      await t.db.query(
        `INSERT INTO mission_claims (organization_id, user_id, mission_id, reward_xp, claimed_at)
         VALUES ($1, $2, 'daily_lesson-2026-01-01', 10, now())`,
        [org, p.id],
      );
      await t.db.query(
        `INSERT INTO member_titles (organization_id, user_id, code, chosen_at) VALUES ($1, $2, 'novice', now())`,
        [org, p.id],
      );
      const [challenge] = await t.db.query(
        `INSERT INTO challenges (organization_id, title, metric, starts_at, ends_at, created_by, created_at, updated_at)
         VALUES ($1, 'Registry challenge', 'xp', now(), now() + interval '1 day', $2, now(), now()) RETURNING id`,
        [org, p.id],
      );
      for (const q of [a, b])
        await t.db.query(
          `INSERT INTO challenge_participants (challenge_id, organization_id, user_id, joined_at) VALUES ($1, $2, $3, now())`,
          [challenge.id, org, q.id],
        );
      await t.db.query(
        `INSERT INTO challenge_results (challenge_id, position, user_id, rank, value) VALUES ($1, 1, $2, 1, 10), ($1, 2, $3, 2, 5)`,
        [challenge.id, a.id, b.id],
      );
    }
  }, 180_000);
  afterAll(() => t.close());

  describe('the live schema', () => {
    let personal: Map<string, string[]>;
    let tables: Set<string>;
    beforeAll(async () => {
      const rows = await t.db.query<{ table_name: string; column_name: string }[]>(
        `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
         WHERE c.table_schema = 'public' AND tb.table_type = 'BASE TABLE' ORDER BY c.table_name, c.column_name`,
      );
      tables = new Set(rows.map((r) => r.table_name));
      personal = new Map();
      for (const r of rows) {
        if (PERSONAL_COLUMN.test(r.column_name)) {
          personal.set(r.table_name, [...(personal.get(r.table_name) ?? []), r.column_name]);
        }
      }
    });

    it('finds the person columns it is meant to find', () => {
      expect(personal.get('users')).toEqual(['email']);
      expect(personal.get('enrollments')).toEqual(['user_id']);
      expect(personal.get('invitations')).toEqual(['accepted_by', 'email', 'invited_by']);
      expect(personal.get('institutes')).toEqual(['contact_email']);
      expect(personal.has('courses')).toBe(true);
      expect(personal.has('lessons')).toBe(false);
    });

    it('every table with a person or email column is covered by a registered handler or exempted with a reason', () => {
      const covered = registry.coveredTables();
      const exempt = registry.exemptions();
      const unregistered = [...personal.entries()]
        .filter(([table]) => !covered.has(table) && !(table in exempt))
        .map(([table, columns]) => `${table} (${columns.join(', ')})`);
      expect(unregistered).toEqual([]);
    });

    it('every registered and exempted table exists; none is both; every exemption says why', () => {
      const covered = registry.coveredTables();
      const exempt = registry.exemptions();
      expect([...covered.keys()].filter((table) => !tables.has(table))).toEqual([]);
      expect(Object.keys(exempt).filter((table) => !tables.has(table))).toEqual([]);
      expect(Object.keys(exempt).filter((table) => covered.has(table))).toEqual([]);
      for (const reason of Object.values(exempt)) expect(reason.length).toBeGreaterThan(30);
    });

    it('the erasers run in order, the account tombstone last', () => {
      const handlers = registry.handlers();
      const orders = handlers.map((h) => h.eraseOrder);
      expect(orders).toEqual([...orders].sort((x, y) => x - y));
      expect(handlers.at(-1)).toMatchObject({ area: 'account', key: 'profile', tables: ['users'] });
      const position = (key: string) => handlers.findIndex((h) => `${h.area}.${h.key}` === key);
      expect(position('sessions.email_codes')).toBeLessThan(position('sessions.sessions'));
      expect(position('learning.lesson_completions')).toBeLessThan(position('learning.enrollments'));
      expect(position('learning.enrollments')).toBeLessThan(position('organizations.memberships'));
    });
  });

  describe('export and erasure of one person', () => {
    it('the export job’s ZIP holds exactly what every registered exporter gives, area by area, and nothing of the other person', async () => {
      const ready = await exportJob(t, a.s);
      expect(ready.status).toBe('ready');
      const expected = await exportOf(a.id);
      const { files } = await downloadExport(t, a.s, ready.id);
      const manifest = JSON.parse(files.get('manifest.json')!) as { files: { name: string; records: number }[] };
      for (const [area, handlers] of registry.byArea()) {
        const content = JSON.parse(files.get(`${area}.json`)!) as Record<string, unknown[]>;
        for (const h of handlers) {
          const rows = JSON.parse(JSON.stringify(expected[`${area}.${h.key}`])) as { id?: string }[];
          if (`${area}.${h.key}` === 'account.data_exports') {
            // The export lists itself as it was while being built (running); the rest is as now.
            expect(content[h.key]).toEqual(
              rows.map((r) => (r.id === ready.id ? expect.objectContaining({ id: ready.id, status: 'running' }) : r)),
            );
          } else {
            expect([`${area}.${h.key}`, content[h.key]]).toEqual([`${area}.${h.key}`, rows]);
          }
          expect(rows.length).toBeGreaterThan(0);
        }
        expect(manifest.files.find((f) => f.name === `${area}.json`)?.records).toBe(
          handlers.reduce((n, h) => n + expected[`${area}.${h.key}`].length, 0),
        );
      }
      const all = [...files.values()].join('\n');
      for (const foreign of [b.id, b.email, b.name, owner.user.id, owner.email, 'Bruno']) {
        expect([foreign, all.includes(foreign)]).toEqual([foreign, false]);
      }
    });

    it('exports only the person’s rows, without secrets; erases them per 17.4 in one transaction, idempotently, leaving the other person untouched', async () => {
      const [idsA, idsB] = [await idsOf(a), await idsOf(b)];
      const before = { a: await footprint(a, idsA.sessions, idsA.invitations, idsA.grants) };
      const bBefore = await footprint(b, idsB.sessions, idsB.invitations, idsB.grants);
      // The fixture really has both people in every table.
      for (const [table, n] of Object.entries(before.a)) expect([table, n > 0]).toEqual([table, true]);
      for (const [table, n] of Object.entries(bBefore)) expect([table, n > 0]).toEqual([table, true]);

      // Export: every section has the person's rows, and nothing of anyone else or any secret.
      const exportA = await exportOf(a.id);
      const exportB = await exportOf(b.id);
      for (const [section, rows] of Object.entries(exportA))
        expect([section, rows.length > 0]).toEqual([section, true]);
      for (const [section, rows] of Object.entries(exportB))
        expect([section, rows.length > 0]).toEqual([section, true]);
      const jsonA = JSON.stringify(exportA);
      expect(jsonA).toContain(a.id);
      expect(jsonA).toContain(a.email);
      for (const foreign of [b.id, b.email, b.name, owner.user.id, owner.email, 'Bruno']) {
        expect([foreign, jsonA.includes(foreign)]).toEqual([foreign, false]);
      }
      const keys = Object.values(exportA).flatMap((rows) => rows.flatMap((r) => Object.keys(r)));
      expect(keys.filter((k) => SECRET_KEY.test(k))).toEqual([]);
      const secrets = (
        await t.db.query<{ v: string }[]>(
          `SELECT token_hash AS v FROM api_keys WHERE user_id = $1
           UNION ALL SELECT token_hash FROM refresh_tokens WHERE session_id = ANY($2::uuid[])
           UNION ALL SELECT code_hash FROM recovery_codes WHERE user_id = $1
           UNION ALL SELECT token_hash FROM auth_challenges WHERE user_id = $1
           UNION ALL SELECT code_hash FROM email_codes WHERE subject = $3 OR subject = $1::text
           UNION ALL SELECT token_hash FROM oauth_access_tokens WHERE user_id = $1
           UNION ALL SELECT token_hash FROM oauth_refresh_tokens WHERE grant_id = ANY($4::uuid[])
           UNION ALL SELECT code_hash FROM oauth_codes WHERE grant_id = ANY($4::uuid[])
           UNION ALL SELECT state_hash FROM sign_in_states WHERE created_by = $1
           UNION ALL SELECT code_verifier_encrypted FROM sign_in_states WHERE created_by = $1
           UNION ALL SELECT nonce FROM sign_in_states WHERE created_by = $1
           UNION ALL SELECT client_secret_encrypted FROM sso_connections WHERE created_by = $1
           UNION ALL SELECT token_hash FROM scim_tokens WHERE created_by = $1
           UNION ALL SELECT two_factor_secret FROM users WHERE id = $1
           UNION ALL SELECT credential_id FROM passkeys WHERE user_id = $1
           UNION ALL SELECT encode(public_key, 'escape') FROM passkeys WHERE user_id = $1
           UNION ALL SELECT challenge FROM passkey_challenges WHERE user_id = $1
           UNION ALL SELECT ip_fingerprint FROM sessions WHERE user_id = $1 AND ip_fingerprint IS NOT NULL`,
          [a.id, idsA.sessions, a.email, idsA.grants],
        )
      ).map((r) => r.v);
      expect(secrets.length).toBeGreaterThan(12);
      expect(secrets.filter((secret) => jsonA.includes(secret))).toEqual([]);
      expect(jsonA).not.toContain(a.token);
      // Spot checks of what each area writes.
      expect(exportA['account.profile']).toEqual([
        expect.objectContaining({ id: a.id, email: a.email, name: a.name, two_factor_enabled: true }),
      ]);
      expect(exportA['organizations.memberships'].map((m) => m.organization_id).sort()).toEqual([org, a.ownOrg].sort());
      expect(exportA['organizations.imported_rows']).toEqual([
        expect.objectContaining({ name: 'Alice E.', outcome: 'skipped' }),
      ]);
      expect(exportA['audit.entries'].length).toBeGreaterThan(5);
      expect(exportA['tutor.conversations']).toEqual([
        expect.objectContaining({
          messages: [
            expect.objectContaining({ role: 'user', content: 'What does Alice Erasable need to know?' }),
            expect.objectContaining({ role: 'assistant', status: 'complete' }),
          ],
        }),
      ]);
      const aiRows = (await t.db.query(`SELECT count(*)::int AS n FROM ai_usage WHERE organization_id = $1`, [org]))[0]
        .n;
      const graded = exportA['audit.entries'].find((e) => e.action === 'capstone.graded');
      expect(graded?.metadata).toEqual({ path_id: programId, score: 90, status: 'passed' });

      // Erase A: every eraser, in order, in one transaction.
      const [{ token_version: versionBefore }] = await t.db.query(`SELECT token_version FROM users WHERE id = $1`, [
        a.id,
      ]);
      const certificates = await t.db.query<{ code: string }[]>(
        `SELECT code FROM issued_certificates WHERE user_id = $1`,
        [a.id],
      );
      expect(certificates).toHaveLength(2);
      await erase(a.id);

      const after = await footprint(a, idsA.sessions, idsA.invitations, idsA.grants);
      const { certificates_kept: kept, audit_kept: audit, ...gone } = after;
      expect(kept).toBe(before.a.certificates_kept);
      expect(audit).toBe(before.a.audit_kept);
      expect(Object.entries(gone).filter(([, n]) => n !== 0)).toEqual([]);
      // The AI usage of the organization keeps its rows (its totals stay right), without A.
      expect((await t.db.query(`SELECT count(*)::int AS n FROM ai_usage WHERE organization_id = $1`, [org]))[0].n).toBe(
        aiRows,
      );
      // The import rows that named A keep their number and outcome.
      const [importRow] = await t.db.query(
        `SELECT email, name, outcome, reason FROM member_import_rows WHERE row_number = 1 AND name IS NULL AND outcome = 'skipped'`,
      );
      expect(importRow).toEqual({ email: null, name: null, outcome: 'skipped', reason: 'Already a member.' });
      // The tombstone.
      const [tomb] = await t.db.query(`SELECT * FROM users WHERE id = $1`, [a.id]);
      expect(tomb).toMatchObject({
        email: `erased+${a.id}@erased.invalid`,
        username: `erased-${a.id.replace(/-/g, '').slice(0, 12)}`,
        name: null,
        headline: null,
        bio: null,
        location: null,
        avatar_url: null,
        avatar: null,
        two_factor_secret: null,
        two_factor_enabled_at: null,
        two_factor_last_step: null,
        age_bracket: null,
        platform_roles: [],
        time_zone: 'UTC',
        public_profile: false,
        erased_at: expect.any(Date),
      });
      expect(tomb.token_version).toBe(versionBefore + 1);
      // A's credentials are dead; the certificates still verify, without the name.
      await a.s.agent.get('/api/v1/auth/me').expect(401);
      await bearer(t, a.token).get('/api/v1/auth/credential').expect(401);
      for (const { code } of certificates) {
        const res = await t.client().get(`/api/v1/public/certificates/verify/${code}`).expect(200);
        expect(res.body).toMatchObject({ code, status: 'valid', holder_name: null });
      }
      const mine = await t.db.query(`SELECT holder_name FROM issued_certificates WHERE user_id = $1`, [a.id]);
      expect(mine).toEqual([{ holder_name: null }, { holder_name: null }]);
      // Each membership ended with member.left, by the service.
      const left = await t.db.query(
        `SELECT organization_id, actor_id FROM domain_events WHERE name = 'member.left' AND payload->>'user_id' = $1
         ORDER BY organization_id`,
        [a.id],
      );
      expect(left).toEqual([org, a.ownOrg].sort().map((organization_id) => ({ organization_id, actor_id: null })));

      // B is untouched: the same rows (but for A's submission that B graded, which went with A), the same export.
      expect(await footprint(b, idsB.sessions, idsB.invitations, idsB.grants)).toEqual({
        ...bBefore,
        capstones_graded: 0,
      });
      expect(await exportOf(b.id)).toEqual(exportB);

      // A second run changes nothing.
      const snapshot = async () => ({
        user: (await t.db.query(`SELECT * FROM users WHERE id = $1`, [a.id]))[0],
        footprint: await footprint(a, idsA.sessions, idsA.invitations, idsA.grants),
        events: (await t.db.query(`SELECT count(*)::int AS n FROM domain_events`))[0].n,
        certificates: await t.db.query(`SELECT * FROM issued_certificates WHERE user_id = $1 ORDER BY id`, [a.id]),
      });
      const once = await snapshot();
      await erase(a.id);
      expect(await snapshot()).toEqual(once);
      expect(await exportOf(b.id)).toEqual(exportB);
      // And B's credentials still work.
      await b.s.agent.get('/api/v1/auth/me').expect(200);
      await bearer(t, b.token).get('/api/v1/auth/credential').expect(200);
    });

    it("the erased holder's certificate PDF says the name was removed", async () => {
      const [cert] = await t.db.query(`SELECT id FROM issued_certificates WHERE user_id = $1 AND type = 'course'`, [
        a.id,
      ]);
      const credential: Credential = {
        kind: 'session',
        userId: a.id,
        sessionId: null,
        tokenId: null,
        organizationId: null,
        access: 'read',
        impersonatorId: null,
        platformRoles: [],
        minor: false,
      };
      const { pdf } = await t.app.get(CertificatePdfService).render(credential, cert.id);
      const parser = new PDFParse({ data: new Uint8Array(pdf) });
      try {
        const text = (await parser.getText()).text.replace(/\s+/g, ' ');
        expect(text).toContain('(nombre retirado a petición de su titular)');
        expect(text).not.toContain(a.name);
      } finally {
        await parser.destroy();
      }
    });

    it('keeps the name on certificates when the person chose to (keep_certificate_names)', async () => {
      const keeper = await adult(t);
      await addMember(t, org, keeper.user.id, 'student');
      const c = await makeCourse(t, owner.user.id, { title: 'Keep my name', issues_certificate: true });
      await keeper.agent.post(orgUrl(`/courses/${c.id}/enroll`)).expect(201);
      await keeper.agent.post(orgUrl(`/courses/${c.id}/lessons/${c.lessons[0].id}/complete`)).expect(200);
      await erase(keeper.user.id, true);
      const [row] = await t.db.query(`SELECT code, holder_name FROM issued_certificates WHERE user_id = $1`, [
        keeper.user.id,
      ]);
      expect(row.holder_name).toBe('Test Person');
      const res = await t.client().get(`/api/v1/public/certificates/verify/${row.code}`).expect(200);
      expect(res.body).toMatchObject({ status: 'valid', holder_name: 'Test Person' });
      expect(await t.db.query(`SELECT 1 FROM enrollments WHERE user_id = $1`, [keeper.user.id])).toEqual([]);
    });
  });
});
