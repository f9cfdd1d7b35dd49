import { ORG_ROLES, type OrgRole } from '@/core/auth/tenancy';
import { leavesNoOwner, mayChangeRole, mayRemove } from './member-rules';

describe('mayChangeRole: the full matrix (actor x current role x new role)', () => {
  // Expected outcome for every combination; `true` = allowed.
  const allowed = (actor: OrgRole, current: OrgRole, next: OrgRole): boolean => {
    if (actor === 'owner') return true;
    if (actor === 'admin') return ['teacher', 'student'].includes(current) && ['teacher', 'student'].includes(next);
    return false;
  };
  const cases = ORG_ROLES.flatMap((actor) =>
    ORG_ROLES.flatMap((current) => ORG_ROLES.map((next) => [actor, current, next] as [OrgRole, OrgRole, OrgRole])),
  );

  it('covers 64 combinations', () => expect(cases).toHaveLength(64));

  it.each(cases)('%s changing a %s into a %s', (actor, current, next) => {
    expect(mayChangeRole(actor, current, next)).toBe(allowed(actor, current, next));
  });

  it.each([
    ['admin', 'student', 'admin'],
    ['admin', 'teacher', 'owner'],
    ['admin', 'admin', 'student'],
    ['admin', 'owner', 'student'],
    ['admin', 'admin', 'admin'],
  ] as const)('an admin never grants or removes owner/admin: %s %s -> %s refused', (actor, current, next) => {
    expect(mayChangeRole(actor, current, next)).toBe(false);
  });

  it.each([
    ['owner', 'admin', 'owner'],
    ['owner', 'owner', 'student'],
    ['admin', 'student', 'teacher'],
    ['admin', 'teacher', 'student'],
  ] as const)('%s may change %s -> %s', (actor, current, next) => {
    expect(mayChangeRole(actor, current, next)).toBe(true);
  });
});

describe('mayRemove', () => {
  it.each([
    ['owner', 'owner', false, true],
    ['owner', 'admin', false, true],
    ['owner', 'teacher', false, true],
    ['owner', 'student', false, true],
    ['admin', 'owner', false, false],
    ['admin', 'admin', false, false],
    ['admin', 'teacher', false, true],
    ['admin', 'student', false, true],
    ['teacher', 'student', false, false],
    ['teacher', 'teacher', false, false],
    ['student', 'student', false, false],
    ['student', 'owner', false, false],
    // Leaving is always allowed (the last owner rule applies separately).
    ['owner', 'owner', true, true],
    ['admin', 'admin', true, true],
    ['teacher', 'teacher', true, true],
    ['student', 'student', true, true],
  ] as const)('%s removing a %s (self: %s): %s', (actor, target, self, expected) => {
    expect(mayRemove(actor, target, self)).toBe(expected);
  });
});

describe('leavesNoOwner', () => {
  it.each([
    ['owner', 'admin', 1, true],
    ['owner', 'student', 1, true],
    ['owner', null, 1, true],
    ['owner', 'admin', 2, false],
    ['owner', null, 2, false],
    ['owner', 'owner', 1, false],
    ['admin', 'student', 1, false],
    ['admin', null, 0, false],
    ['student', 'owner', 1, false],
    ['teacher', null, 1, false],
  ] as const)('%s -> %s with %d owner(s): %s', (current, next, owners, expected) => {
    expect(leavesNoOwner(current, next, owners)).toBe(expected);
  });
});
