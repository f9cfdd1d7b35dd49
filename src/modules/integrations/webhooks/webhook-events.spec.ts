import type { DomainEvent, EventName } from '@/core/events/event-catalog';
import { SOURCE_EVENTS, webhookOf, type SourceEvent } from './webhook-events';

const U = '00000000-0000-4000-8000-000000000001';
const C = '00000000-0000-4000-8000-000000000002';
const X = '00000000-0000-4000-8000-000000000003';
const AT = '2026-11-29T10:00:00.000Z';

function event<N extends SourceEvent>(name: N, payload: DomainEvent<N>['payload']): DomainEvent<N> {
  return { id: X, name, version: 1, organization_id: C, actor_id: U, occurred_at: new Date(AT), payload };
}

describe('webhookOf (extensions-v2 25.3: the thin data of each webhook)', () => {
  it('maps every source event, carrying only the documented fields', () => {
    const cases: [DomainEvent<SourceEvent>, string, Record<string, unknown>][] = [
      [
        event('enrollment.created', { user_id: U, course_id: C, enrolled_at: AT }),
        'enrollment.created',
        { user_id: U, course_id: C, enrolled_at: AT },
      ],
      [
        event('course.completed', { user_id: U, course_id: C, completed_at: AT }),
        'course.completed',
        { user_id: U, course_id: C, completed_at: AT },
      ],
      [
        event('certificate.issued', {
          certificate_id: X,
          code: 'ABC',
          type: 'course',
          user_id: U,
          course_id: C,
          path_id: null,
          issued_at: AT,
        }),
        'certificate.issued',
        { certificate_id: X, code: 'ABC', type: 'course', user_id: U, course_id: C, path_id: null, issued_at: AT },
      ],
      [
        event('certificate.revoked', { certificate_id: X, code: 'ABC', user_id: U, revoked_at: AT }),
        'certificate.revoked',
        { certificate_id: X, code: 'ABC', revoked_at: AT },
      ],
      [
        event('certificate.reissued', {
          certificate_id: X,
          code: 'DEF',
          user_id: U,
          replaced_certificate_id: C,
          replaced_code: 'ABC',
        }),
        'certificate.reissued',
        { certificate_id: X, code: 'DEF', replaced_certificate_id: C, replaced_code: 'ABC' },
      ],
      [
        event('program.completed', { user_id: U, path_id: C, completed_at: AT }),
        'program.completed',
        { user_id: U, path_id: C, completed_at: AT },
      ],
      [event('member.joined', { user_id: U, role: 'teacher' }), 'member.joined', { user_id: U, role: 'teacher' }],
      [event('member.left', { user_id: U }), 'member.left', { user_id: U }],
      [event('member.suspended', { user_id: U }), 'member.suspended', { user_id: U }],
      [event('member.reactivated', { user_id: U }), 'member.reactivated', { user_id: U }],
    ];
    for (const [source, type, data] of cases) expect(webhookOf(source)).toEqual({ type, data });
  });

  it('turns both exam events into exam.graded; a review settles the flag', () => {
    const base = { session_id: X, exam_id: C, course_id: C, user_id: U };
    expect(
      webhookOf(event('exam.submitted', { ...base, score: 80, passed: true, flagged: true, submitted_by: 'deadline' })),
    ).toEqual({
      type: 'exam.graded',
      data: { session_id: X, exam_id: C, user_id: U, score: 80, passed: true, flagged: true },
    });
    expect(
      webhookOf(event('exam.reviewed', { ...base, decision: 'void', allow_retake: true, score: null, passed: false })),
    ).toEqual({
      type: 'exam.graded',
      data: { session_id: X, exam_id: C, user_id: U, score: null, passed: false, flagged: false },
    });
  });

  it('carries both roles of a role change', () => {
    expect(webhookOf(event('member.role_changed', { user_id: U, from: 'student', to: 'teacher' }))).toEqual({
      type: 'member.role_changed',
      data: { user_id: U, from: 'student', to: 'teacher' },
    });
  });

  it('has a mapping for every source event and refuses any other event', () => {
    for (const name of SOURCE_EVENTS) {
      expect(() => webhookOf(event(name, {} as DomainEvent<typeof name>['payload']))).not.toThrow();
    }
    expect(() =>
      webhookOf({ ...event('member.left', { user_id: U }), name: 'lesson.completed' as EventName } as never),
    ).toThrow('Event lesson.completed has no webhook');
  });
});
