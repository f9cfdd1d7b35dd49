import { isAdmin, type OrgRole } from '@/core/auth/tenancy';

/**
 * Who may change whose role. Owners and admins manage members, but only an owner grants or removes `owner` and
 * `admin`: an admin can neither touch an owner's or admin's role (their own included) nor raise anyone to those.
 */
export function mayChangeRole(actor: OrgRole, current: OrgRole, next: OrgRole): boolean {
  if (actor === 'owner') return true;
  if (actor !== 'admin') return false;
  return !isAdmin(current) && !isAdmin(next);
}

/**
 * Who may remove whom. Anyone may leave; otherwise owners remove anyone and admins remove teachers and students.
 */
export function mayRemove(actor: OrgRole, target: OrgRole, self: boolean): boolean {
  if (self) return true;
  if (actor === 'owner') return true;
  return actor === 'admin' && !isAdmin(target);
}

/** Whether the change (`next` null = removal) would leave the organization without an owner. */
export function leavesNoOwner(current: OrgRole, next: OrgRole | null, owners: number): boolean {
  return current === 'owner' && next !== 'owner' && owners <= 1;
}
