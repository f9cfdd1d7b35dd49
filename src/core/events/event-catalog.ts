import { isUuid } from '@/core/http/uuid';

/**
 * The catalog of domain events (extensions-v2 section 26.1): one typed definition per event, with the area that
 * publishes it and the fields of its payload. The field specs give both the TypeScript payload type (checked at
 * every `publish` and in every subscriber) and the generated documentation (docs/events.md).
 *
 * Every event also carries `id`, `name`, `version`, `organization_id`, `actor_id` and `occurred_at` (the envelope,
 * `DomainEvent`). Payloads hold ids, enums, numbers and times: never a name, an email or other free text about a
 * person (events are kept for a while and reach outbound webhooks). A subject person is named by `user_id`
 * explicitly, since the actor is not always the subject (a teacher grades a learner's capstone).
 */

type Scalar = 'uuid' | 'string' | 'integer' | 'number' | 'boolean' | 'date-time';
/** A field: a scalar, a nullable scalar (`'uuid?'`), or one of a fixed set of strings. */
export type FieldSpec = Scalar | `${Scalar}?` | { readonly enum: readonly string[]; readonly nullable?: boolean };
export type PayloadSpec = Readonly<Record<string, FieldSpec>>;

type ScalarType<S> = S extends 'uuid' | 'string' | 'date-time'
  ? string
  : S extends 'integer' | 'number'
    ? number
    : S extends 'boolean'
      ? boolean
      : never;
type FieldType<F> = F extends `${infer S}?`
  ? ScalarType<S> | null
  : F extends { readonly enum: readonly (infer E)[]; readonly nullable: true }
    ? E | null
    : F extends { readonly enum: readonly (infer E)[] }
      ? E
      : ScalarType<F>;
export type PayloadOf<P extends PayloadSpec> = { -readonly [K in keyof P]: FieldType<P[K]> };

export interface EventDefinition<P extends PayloadSpec = PayloadSpec> {
  readonly version: number;
  /** The area (module folder) that owns the fact and is the only publisher. */
  readonly publisher: string;
  readonly description: string;
  readonly payload: P;
}

const event = <const P extends PayloadSpec>(def: EventDefinition<P>): EventDefinition<P> => def;
const oneOf = <const E extends readonly string[]>(values: E) => ({ enum: values });

export const DOMAIN_EVENTS = {
  // Wave 1 facts.
  'enrollment.created': event({
    version: 1,
    publisher: 'progress',
    description: 'A person enrolled in a course of the organization',
    payload: { user_id: 'uuid', course_id: 'uuid', enrolled_at: 'date-time' },
  }),
  'lesson.completed': event({
    version: 1,
    publisher: 'progress',
    description: 'A person completed a lesson (the first time only)',
    payload: { user_id: 'uuid', course_id: 'uuid', lesson_id: 'uuid' },
  }),
  'quiz.submitted': event({
    version: 1,
    publisher: 'progress',
    description: 'A person submitted a lesson quiz (every attempt); `first_pass` on the first passed attempt',
    payload: {
      user_id: 'uuid',
      course_id: 'uuid',
      lesson_id: 'uuid',
      quiz_id: 'uuid',
      submission_id: 'uuid',
      score: 'integer',
      passed: 'boolean',
      first_pass: 'boolean',
    },
  }),
  'course.completed': event({
    version: 1,
    publisher: 'progress',
    description: 'A person completed a course (every lesson, and the required exams)',
    payload: { user_id: 'uuid', course_id: 'uuid', completed_at: 'date-time' },
  }),
  'certificate.issued': event({
    version: 1,
    publisher: 'certificates',
    description: 'A course or program certificate was issued',
    payload: {
      certificate_id: 'uuid',
      code: 'string',
      type: oneOf(['course', 'program']),
      user_id: 'uuid',
      course_id: 'uuid?',
      path_id: 'uuid?',
      issued_at: 'date-time',
    },
  }),
  'certificate.revoked': event({
    version: 1,
    publisher: 'certificates',
    description: 'An owner or admin revoked a certificate',
    payload: { certificate_id: 'uuid', code: 'string', user_id: 'uuid', revoked_at: 'date-time' },
  }),
  'certificate.reissued': event({
    version: 1,
    publisher: 'certificates',
    description: 'A certificate was replaced by a new one with a corrected name',
    payload: {
      certificate_id: 'uuid',
      code: 'string',
      user_id: 'uuid',
      replaced_certificate_id: 'uuid',
      replaced_code: 'string',
    },
  }),
  'program.completed': event({
    version: 1,
    publisher: 'paths',
    description: 'A person completed a program',
    payload: { user_id: 'uuid', path_id: 'uuid', completed_at: 'date-time' },
  }),
  'capstone.graded': event({
    version: 1,
    publisher: 'paths',
    description: 'A teacher or admin graded a capstone submission',
    payload: { submission_id: 'uuid', user_id: 'uuid', path_id: 'uuid', status: oneOf(['passed', 'failed']) },
  }),
  'member.joined': event({
    version: 1,
    publisher: 'organizations',
    description: 'A person became a member of the organization',
    payload: { user_id: 'uuid', role: oneOf(['owner', 'admin', 'teacher', 'student']) },
  }),
  'member.left': event({
    version: 1,
    publisher: 'organizations',
    description: 'A membership ended (removed, or left)',
    payload: { user_id: 'uuid' },
  }),
  'member.suspended': event({
    version: 1,
    publisher: 'organizations',
    description: 'A membership was suspended (the directory deactivated the person): it opens nothing until restored',
    payload: { user_id: 'uuid' },
  }),
  'member.reactivated': event({
    version: 1,
    publisher: 'organizations',
    description: 'A suspended membership was restored',
    payload: { user_id: 'uuid' },
  }),
  'member.role_changed': event({
    version: 1,
    publisher: 'organizations',
    description: 'A member’s role changed',
    payload: {
      user_id: 'uuid',
      from: oneOf(['owner', 'admin', 'teacher', 'student']),
      to: oneOf(['owner', 'admin', 'teacher', 'student']),
    },
  }),
  'invitation.accepted': event({
    version: 1,
    publisher: 'invitations',
    description: 'An invitation was accepted',
    payload: {
      invitation_id: 'uuid',
      user_id: 'uuid',
      role: oneOf(['owner', 'admin', 'teacher', 'student']),
    },
  }),
  'course.published': event({
    version: 1,
    publisher: 'editor',
    description: 'An editor published a course (first publication or a republication); platform-level',
    payload: { course_id: 'uuid', first_publication: 'boolean' },
  }),
  'course.rated': event({
    version: 1,
    publisher: 'courses',
    description: 'A person rated a course (new rating or a change)',
    payload: { user_id: 'uuid', course_id: 'uuid', stars: 'integer' },
  }),

  // Wave 2 facts.
  'flashcard.reviewed': event({
    version: 1,
    publisher: 'flashcards',
    description: 'A person reviewed a flashcard',
    payload: { user_id: 'uuid', review_id: 'uuid', card_id: 'uuid', deck_id: 'uuid', grade: 'integer' },
  }),
  'game.finished': event({
    version: 1,
    publisher: 'games',
    description: 'A single-player game ended (finished or abandoned)',
    payload: {
      user_id: 'uuid',
      game_id: 'uuid',
      mode: oneOf(['survival', 'speed', 'risk']),
      score: 'integer',
      end_reason: oneOf([
        'lives_exhausted',
        'time_up',
        'questions_exhausted',
        'question_limit',
        'points_exhausted',
        'abandoned',
      ]),
    },
  }),
  'duel.finished': event({
    version: 1,
    publisher: 'duels',
    description: 'A duel ended with a result (completed, forfeit or disconnect)',
    payload: {
      duel_id: 'uuid',
      challenger_id: 'uuid',
      opponent_id: 'uuid',
      winner_id: 'uuid?',
      reason: oneOf(['completed', 'forfeit', 'disconnect']),
      /** Rounds that had started when it ended (0..5): a forfeit before the second awards no XP. */
      rounds_started: 'integer',
    },
  }),
  'duel.challenged': event({
    version: 1,
    publisher: 'duels',
    description: 'A member challenged a colleague to a duel',
    payload: { duel_id: 'uuid', challenger_id: 'uuid', opponent_id: 'uuid' },
  }),
  'duel.answered': event({
    version: 1,
    publisher: 'duels',
    description: 'The challenged person accepted or declined',
    payload: {
      duel_id: 'uuid',
      challenger_id: 'uuid',
      opponent_id: 'uuid',
      answer: oneOf(['accepted', 'declined']),
    },
  }),
  'exam.submitted': event({
    version: 1,
    publisher: 'exams',
    description: 'An exam session closed and was graded (by the learner or at the deadline)',
    payload: {
      session_id: 'uuid',
      exam_id: 'uuid',
      course_id: 'uuid',
      user_id: 'uuid',
      score: 'integer',
      passed: 'boolean',
      flagged: 'boolean',
      submitted_by: oneOf(['learner', 'deadline']),
    },
  }),
  'exam.reviewed': event({
    version: 1,
    publisher: 'exams',
    description: 'A reviewer accepted or voided an exam session',
    payload: {
      session_id: 'uuid',
      exam_id: 'uuid',
      course_id: 'uuid',
      user_id: 'uuid',
      decision: oneOf(['accept', 'void']),
      allow_retake: 'boolean',
      score: 'integer?',
      passed: 'boolean',
    },
  }),
  'level.reached': event({
    version: 1,
    publisher: 'gamification',
    description: 'A person reached a new level in the organization',
    payload: { user_id: 'uuid', level: 'integer' },
  }),
  'badge.awarded': event({
    version: 1,
    publisher: 'gamification',
    description: 'A person earned a badge in the organization',
    payload: { user_id: 'uuid', code: 'string', kind: oneOf(['system', 'program']) },
  }),
  'streak.milestone': event({
    version: 1,
    publisher: 'gamification',
    description: 'A person’s streak reached 7, 30, 100 or 365 days',
    payload: { user_id: 'uuid', days: 'integer' },
  }),
  'challenge.finished': event({
    version: 1,
    publisher: 'gamification',
    description: 'A challenge ended and its standings were frozen',
    payload: { challenge_id: 'uuid' },
  }),
  'post.created': event({
    version: 1,
    publisher: 'social',
    description: 'A member posted to the organization feed',
    payload: { post_id: 'uuid', author_id: 'uuid' },
  }),
  'comment.created': event({
    version: 1,
    publisher: 'social',
    description: 'A member commented on a post',
    payload: { comment_id: 'uuid', post_id: 'uuid', author_id: 'uuid', post_author_id: 'uuid' },
  }),
  'content.reported': event({
    version: 1,
    publisher: 'social',
    description: 'A member reported a post or a comment',
    payload: { report_id: 'uuid', item_type: oneOf(['post', 'comment']), item_id: 'uuid' },
  }),
  'moderation.decided': event({
    version: 1,
    publisher: 'social',
    description: 'A moderator approved or removed a post or comment',
    payload: {
      item_type: oneOf(['post', 'comment']),
      item_id: 'uuid',
      action: oneOf(['approve', 'remove']),
      author_id: 'uuid',
      warn_author: 'boolean',
    },
  }),
  'report.finished': event({
    version: 1,
    publisher: 'reports',
    description: 'An organization report finished (ready or failed)',
    payload: { report_id: 'uuid', status: oneOf(['completed', 'failed']), requested_by: 'uuid' },
  }),
  'support.replied': event({
    version: 1,
    publisher: 'support',
    description: 'Support staff replied to a ticket',
    payload: { ticket_id: 'uuid', user_id: 'uuid' },
  }),
} as const;

export type EventName = keyof typeof DOMAIN_EVENTS;
export type EventPayload<N extends EventName> = PayloadOf<(typeof DOMAIN_EVENTS)[N]['payload']>;

/** An event as published and delivered. */
export interface DomainEvent<N extends EventName = EventName> {
  readonly id: string;
  readonly name: N;
  readonly version: number;
  /** The organization the fact belongs to; null for platform-level facts (course publication). */
  readonly organization_id: string | null;
  /** Who caused it (null for the service itself: a deadline, a schedule). */
  readonly actor_id: string | null;
  readonly occurred_at: Date;
  readonly payload: EventPayload<N>;
}

export function isEventName(name: string): name is EventName {
  return Object.prototype.hasOwnProperty.call(DOMAIN_EVENTS, name);
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function checkScalar(kind: string, value: unknown): boolean {
  switch (kind) {
    case 'uuid':
      return isUuid(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date-time':
      return typeof value === 'string' && ISO.test(value);
    default:
      return false;
  }
}

/** The payload's problems against its spec (missing, extra or mistyped fields); empty when it conforms. */
export function payloadProblems(name: EventName, payload: Record<string, unknown>): string[] {
  const spec = DOMAIN_EVENTS[name].payload as PayloadSpec;
  const problems: string[] = [];
  for (const [field, fieldSpec] of Object.entries(spec)) {
    const value = payload[field];
    if (typeof fieldSpec === 'object') {
      if (value === null && fieldSpec.nullable) continue;
      if (typeof value !== 'string' || !fieldSpec.enum.includes(value)) problems.push(`${field}: not one of the enum`);
      continue;
    }
    const nullable = fieldSpec.endsWith('?');
    if (value === null && nullable) continue;
    if (value === undefined || !checkScalar(nullable ? fieldSpec.slice(0, -1) : fieldSpec, value)) {
      problems.push(`${field}: expected ${fieldSpec}`);
    }
  }
  for (const field of Object.keys(payload)) if (!(field in spec)) problems.push(`${field}: not in the catalog`);
  return problems;
}

function describeField(spec: FieldSpec): string {
  if (typeof spec === 'object')
    return `${spec.enum.map((e) => `\`${e}\``).join(' \\| ')}${spec.nullable ? ' or null' : ''}`;
  return spec.endsWith('?') ? `${spec.slice(0, -1)} or null` : spec;
}

/** docs/events.md: every event, its publisher, payload and the subscribers found by discovery. */
export function eventsMarkdown(subscribersOf: (name: EventName) => readonly string[]): string {
  const lines = [
    '# Domain events',
    '',
    'Generated from `src/core/events/event-catalog.ts` and the `@OnDomainEvent` subscribers found at start',
    '(`npm run docs:generate`); the e2e suite fails when it drifts. Every event is published inside the',
    'transaction of its fact, delivered at least once to each subscriber, and applied once per (event, subscriber).',
    'Envelope of every event: `id`, `name`, `version`, `organization_id`, `actor_id`, `occurred_at`, `payload`.',
    '',
    '| Event | v | Published by | Payload | Subscribers |',
    '|---|---|---|---|---|',
  ];
  for (const name of Object.keys(DOMAIN_EVENTS).sort() as EventName[]) {
    const def = DOMAIN_EVENTS[name] as EventDefinition;
    const payload = Object.entries(def.payload)
      .map(([field, spec]) => `\`${field}\`: ${describeField(spec)}`)
      .join('; ');
    const subscribers = subscribersOf(name);
    lines.push(
      `| \`${name}\` | ${def.version} | ${def.publisher} | ${payload} | ${subscribers.length ? subscribers.map((s) => `\`${s}\``).join(', ') : 'none yet'} |`,
    );
  }
  lines.push('');
  lines.push('Descriptions:');
  lines.push('');
  for (const name of Object.keys(DOMAIN_EVENTS).sort() as EventName[]) {
    lines.push(`- \`${name}\`: ${(DOMAIN_EVENTS[name] as EventDefinition).description}.`);
  }
  lines.push('');
  return lines.join('\n');
}
