import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { Membership } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import type { StatementQueryDto, StatementResultDto } from './dto/xapi.dto';
import { URL_NAMESPACE, uuidV5 } from './uuid-v5';
import { type SourceFilter, type SourceKind, type SourceRow, XapiRepository } from './xapi.repository';

const ADL = 'http://adlnet.gov/expapi';
const VERBS = {
  registered: { id: `${ADL}/verbs/registered`, display: { 'en-US': 'registered', 'es-ES': 'se inscribió' } },
  completed: { id: `${ADL}/verbs/completed`, display: { 'en-US': 'completed', 'es-ES': 'completó' } },
  passed: { id: `${ADL}/verbs/passed`, display: { 'en-US': 'passed', 'es-ES': 'aprobó' } },
  failed: { id: `${ADL}/verbs/failed`, display: { 'en-US': 'failed', 'es-ES': 'suspendió' } },
} as const;
const TYPES = {
  course: `${ADL}/activities/course`,
  lesson: `${ADL}/activities/lesson`,
  assessment: `${ADL}/activities/assessment`,
} as const;
const ALL_KINDS: readonly SourceKind[] = [
  'enrollment',
  'lesson_completion',
  'quiz_submission',
  'course_completion',
  'exam_session',
  'program_completion',
];

interface Cursor {
  s: string;
  i: string;
}

type Statement = Record<string, unknown> & { id: string };

const tag = (language: string | null | undefined): string => (language === 'en' ? 'en-US' : 'es-ES');
const micros = (iso: string): string => (BigInt(Date.parse(iso)) * 1000n).toString();

/**
 * xAPI 1.0.3 statements of an organization's learning records (extensions-v2 25.4), generated on request: actors are
 * pseudonymous accounts (`homePage` the service, `name` the user id), ids are UUID v5 of the source record (so a
 * statement's id never changes), pages are keyset-ordered by `stored` then `id`.
 */
@Injectable()
export class XapiService {
  private readonly namespace: string;
  private readonly base: string;

  constructor(
    private readonly repository: XapiRepository,
    private readonly organizations: OrganizationsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.base = config.baseUrl;
    this.namespace = uuidV5(config.baseUrl, URL_NAMESPACE);
  }

  /** The stable id of the statement of a source record. */
  statementId(kind: SourceKind, sourceId: string): string {
    return uuidV5(`${kind}:${sourceId}`, this.namespace);
  }

  async list(member: Membership, query: StatementQueryDto): Promise<StatementResultDto> {
    const cursor = query.cursor !== undefined ? parseCursor(query.cursor) : null;
    const filter: SourceFilter = {
      organizationId: member.organizationId,
      ...this.verbFilter(query.verb),
      userId: query.user_id?.toLowerCase() ?? null,
      sinceUs: query.since ? micros(query.since) : null,
      untilUs: query.until ? micros(query.until) : null,
    };
    const organization = await this.organizations.getById(member.organizationId);
    const limit = query.limit;

    const ties = cursor ? await this.repository.at(filter, cursor.s) : [];
    const rest = await this.repository.after(filter, cursor?.s ?? null, limit + 1);
    const candidates = [...ties, ...rest]
      .map((row) => ({ row, id: this.statementId(row.kind, row.source_id) }))
      .filter(({ row, id }) => !cursor || row.stored_us !== cursor.s || id > cursor.i)
      .sort((a, b) => compareBig(a.row.stored_us, b.row.stored_us) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const page = candidates.slice(0, limit);
    const statements = page.map(({ row, id }) => this.statement(row, id, member.organizationId, organization.locale));
    let more = '';
    if (candidates.length > limit) {
      const last = page[page.length - 1];
      const params = new URLSearchParams();
      if (query.since) params.set('since', query.since);
      if (query.until) params.set('until', query.until);
      if (query.verb) params.set('verb', query.verb);
      if (query.user_id) params.set('user_id', query.user_id);
      params.set('limit', String(limit));
      params.set('cursor', Buffer.from(JSON.stringify({ s: last.row.stored_us, i: last.id })).toString('base64url'));
      more = `/api/v1/organizations/${member.organizationId}/xapi/statements?${params.toString()}`;
    }
    return { statements, more };
  }

  private verbFilter(verb: string | undefined): Pick<SourceFilter, 'kinds' | 'passed'> {
    if (verb === undefined) return { kinds: ALL_KINDS, passed: null };
    if (!isIri(verb)) throw ApiError.validation([{ field: 'verb', message: 'verb must be an absolute IRI' }]);
    switch (verb) {
      case VERBS.registered.id:
        return { kinds: ['enrollment'], passed: null };
      case VERBS.completed.id:
        return { kinds: ['lesson_completion', 'course_completion', 'program_completion'], passed: null };
      case VERBS.passed.id:
        return { kinds: ['quiz_submission', 'exam_session'], passed: true };
      case VERBS.failed.id:
        return { kinds: ['quiz_submission', 'exam_session'], passed: false };
      default:
        return { kinds: [], passed: null }; // a verb this service never uses: no statement
    }
  }

  private activity(path: string, type: string, title: string, language: string | null): Record<string, unknown> {
    return {
      objectType: 'Activity',
      id: `${this.base}/xapi/activities/${path}`,
      definition: { type, name: { [tag(language)]: title } },
    };
  }

  private statement(row: SourceRow, id: string, organizationId: string, orgLocale: string): Statement {
    const language = row.language ?? orgLocale;
    const assessment = row.kind === 'quiz_submission' || row.kind === 'exam_session';
    const verb =
      row.kind === 'enrollment'
        ? VERBS.registered
        : assessment
          ? row.passed
            ? VERBS.passed
            : VERBS.failed
          : VERBS.completed;
    const object =
      row.kind === 'enrollment' || row.kind === 'course_completion'
        ? this.activity(`courses/${row.object_id}`, TYPES.course, row.title, language)
        : row.kind === 'lesson_completion'
          ? this.activity(`lessons/${row.object_id}`, TYPES.lesson, row.title, language)
          : row.kind === 'quiz_submission'
            ? this.activity(`lessons/${row.object_id}/quiz`, TYPES.assessment, row.title, language)
            : row.kind === 'exam_session'
              ? this.activity(`exams/${row.object_id}`, TYPES.assessment, row.title, language)
              : this.activity(`programs/${row.object_id}`, TYPES.course, row.title, language);
    const result = assessment
      ? {
          ...(row.score !== null ? { score: { scaled: row.score / 100, raw: row.score, min: 0, max: 100 } } : {}),
          success: row.passed === true,
        }
      : row.kind === 'enrollment'
        ? null
        : { completion: true };
    const time = row.stored.toISOString();
    const account = (name: string) => ({ objectType: 'Agent', account: { homePage: this.base, name } });
    return {
      id,
      actor: account(row.user_id),
      verb: { id: verb.id, display: { ...verb.display } },
      object,
      ...(result ? { result } : {}),
      context: {
        platform: 'Learning Platform',
        language: tag(language),
        // The course an activity belongs to (lessons, quizzes, exams); a course or program is its own top.
        ...(row.course_id
          ? {
              contextActivities: {
                parent: [
                  this.activity(`courses/${row.course_id}`, TYPES.course, row.course_title ?? '', row.course_language),
                ],
              },
            }
          : {}),
        extensions: { [`${this.base}/xapi/extensions/organization_id`]: organizationId },
      },
      timestamp: time,
      stored: time,
      authority: account('learning-platform'),
      version: '1.0.3',
    };
  }
}

function parseCursor(raw: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof value.s === 'string' && /^-?\d{1,20}$/.test(value.s) && typeof value.i === 'string' && isUuid(value.i)) {
      return { s: value.s, i: value.i.toLowerCase() };
    }
  } catch {
    // falls through to the 422
  }
  throw ApiError.validation([{ field: 'cursor', message: 'cursor is not a position this service gave' }]);
}

function isIri(value: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\S+$/i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function compareBig(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
