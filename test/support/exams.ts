import type { OrgRole } from '@/core/auth/tenancy';
import { type CreateExamDto, type ExamDto, ExamAuthoringService, ExamsService } from '@/modules/learning/exams';
import { makeCourse, type CourseSpec, type MadeCourse } from '../cross-tenant/learning.routes';
import type { SignedIn } from './auth';
import { addMember, adult } from './tenancy';
import type { TestApp } from './test-app';

/** `n` single-choice questions: option `right` is the correct one. */
export function questions(n: number, prefix = 'Q'): CreateExamDto['questions'] {
  return Array.from({ length: n }, (_, i) => ({
    prompt: `${prefix}${i + 1}?`,
    kind: 'single' as const,
    options: [
      { text: 'right', correct: true },
      { text: 'wrong', correct: false },
      { text: 'other', correct: false },
    ],
    explanation: `Because ${prefix}${i + 1}.`,
  }));
}

export function examBody(over: Partial<CreateExamDto> = {}): CreateExamDto {
  return {
    title: 'Final exam',
    duration_minutes: 30,
    passing_score: 50,
    questions_per_attempt: 4,
    status: 'published',
    questions: questions(6),
    ...over,
  };
}

/** An exam made through the authoring service (fixtures: the editor API has its own tests). */
export async function makeExam(
  t: TestApp,
  courseId: string,
  authorId: string,
  over: Partial<CreateExamDto> = {},
): Promise<ExamDto> {
  return t.app.get(ExamAuthoringService).create(courseId, examBody(over), authorId);
}

/** A window made through the service as the organization's owner. */
export async function openWindow(
  t: TestApp,
  organizationId: string,
  ownerId: string,
  examId: string,
  w: { cohort_id?: string | null; opens_at?: string; closes_at?: string | null } = {},
): Promise<string> {
  const created = await t.app
    .get(ExamsService)
    .createWindow({ organizationId, userId: ownerId, role: 'owner' }, examId, {
      cohort_id: w.cohort_id ?? null,
      opens_at: w.opens_at ?? new Date(t.clock.nowMs() - 60_000).toISOString(),
      closes_at: w.closes_at ?? null,
    });
  return created.id;
}

/** A course with one lesson (published), and an adult member enrolled in it. */
export async function courseWith(t: TestApp, authorId: string, spec: Partial<CourseSpec> = {}): Promise<MadeCourse> {
  return makeCourse(t, authorId, { title: `Exam course ${Math.random().toString(36).slice(2, 8)}`, ...spec });
}

export async function member(t: TestApp, organizationId: string, role: OrgRole = 'student'): Promise<SignedIn> {
  const s = await adult(t);
  await addMember(t, organizationId, s.user.id, role);
  return s;
}

export async function enroll(s: SignedIn, organizationId: string, courseId: string): Promise<void> {
  const res = await s.agent.post(`/api/v1/organizations/${organizationId}/courses/${courseId}/enroll`);
  if (res.status !== 201 && res.status !== 200) throw new Error(`enroll failed: ${res.status}`);
}

/** Moves the clock and refreshes these people's access tokens (they last 15 minutes by the clock). */
export async function advance(t: TestApp, ms: number, ...people: SignedIn[]): Promise<void> {
  t.clock.advance(ms);
  for (const p of people) await p.agent.post('/api/v1/auth/refresh').expect(200);
}

/** The correct option ids of each question of an exam (ids survive into the session snapshots). */
export function answerKey(exam: ExamDto): Map<string, { right: string[]; wrong: string }> {
  return new Map(
    exam.questions.map((q) => [
      q.id,
      { right: q.options.filter((o) => o.correct).map((o) => o.id), wrong: q.options.find((o) => !o.correct)!.id },
    ]),
  );
}

/** Every key of a JSON value, at any depth. */
export function deepKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) deepKeys(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      deepKeys(v, into);
    }
  }
  return into;
}

/** A session as the API answers it (the fields tests read). */
export interface SessionBody {
  id: string;
  attempt: number;
  status: string;
  deadline_at: string;
  questions: { id: string; position: number; prompt: string; options: { id: string; text: string }[] }[];
  [k: string]: unknown;
}

export const SESSION_KEYS = [
  'answers',
  'attempt',
  'corrections',
  'counts_as_attempt',
  'deadline_at',
  'exam_id',
  'flagged',
  'id',
  'questions',
  'remaining_ms',
  'result',
  'review_status',
  'server_now',
  'started_at',
  'status',
  'submitted_at',
  'submitted_by',
];
export const STAFF_KEYS = [...SESSION_KEYS, 'client_addresses_count', 'flags', 'person', 'review', 'violations'].sort();
