import type { OrgRole } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import {
  assertUsable,
  cohortRoleFor,
  INVITATION_TTL_MS,
  type InvitationStatus,
  invitationStatus,
  mayInvite,
} from './invitation-rules';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const at = (offsetMs: number): Date => new Date(NOW.getTime() + offsetMs);

describe('invitationStatus', () => {
  it.each([
    ['pending', 1, 'pending'],
    ['pending', 0, 'expired'],
    ['pending', -1, 'expired'],
    ['accepted', -INVITATION_TTL_MS, 'accepted'],
    ['accepted', 1000, 'accepted'],
    ['revoked', -1, 'revoked'],
    ['revoked', 1000, 'revoked'],
  ] as const)('%s expiring at now%+d ms is %s', (status, offset, expected) => {
    expect(invitationStatus({ status, expires_at: at(offset) }, NOW)).toBe(expected);
  });

  it('lasts 7 days', () => {
    expect(INVITATION_TTL_MS).toBe(604_800_000);
  });
});

describe('mayInvite', () => {
  const cases: [OrgRole | null, OrgRole, boolean][] = [
    ['owner', 'owner', true],
    ['owner', 'admin', true],
    ['owner', 'teacher', true],
    ['owner', 'student', true],
    ['admin', 'owner', false],
    ['admin', 'admin', false],
    ['admin', 'teacher', true],
    ['admin', 'student', true],
    ['teacher', 'student', false],
    ['teacher', 'teacher', false],
    ['student', 'student', false],
    [null, 'student', false],
  ];
  it.each(cases)('%s inviting a %s: %s', (actor, role, expected) => {
    expect(mayInvite(actor, role)).toBe(expected);
  });
});

describe('cohortRoleFor', () => {
  it.each([
    ['teacher', 'teacher'],
    ['student', 'student'],
    ['admin', 'student'],
    ['owner', 'student'],
  ] as const)('%s joins the cohort as %s', (role, expected) => {
    expect(cohortRoleFor(role)).toBe(expected);
  });
});

describe('assertUsable', () => {
  function outcome(status: InvitationStatus | null, suspended: boolean): string {
    try {
      assertUsable(status, suspended);
      return 'ok';
    } catch (err) {
      const e = err as ApiError;
      return `${e.status} ${e.code}`;
    }
  }

  it.each([
    [null, false, '404 not_found'],
    [null, true, '404 not_found'],
    ['revoked', false, '404 not_found'],
    ['revoked', true, '404 not_found'],
    ['accepted', false, '409 invitation_already_accepted'],
    ['accepted', true, '409 invitation_already_accepted'],
    ['expired', false, '410 invitation_expired'],
    ['expired', true, '410 invitation_expired'],
    ['pending', true, '403 organization_suspended'],
    ['pending', false, 'ok'],
  ] as const)('%s (suspended: %s) gives %s', (status, suspended, expected) => {
    expect(outcome(status, suspended)).toBe(expected);
  });

  it('throws ApiError', () => {
    expect(() => assertUsable(null, false)).toThrow(ApiError);
  });
});
