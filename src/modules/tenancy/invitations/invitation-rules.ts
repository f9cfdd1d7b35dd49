import { isAdmin, type OrgRole } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';

/** 7 days (extensions-v1, "Members, invitations, import"). */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type StoredInvitationStatus = 'pending' | 'accepted' | 'revoked';
/** What clients see: "expired" is a pending invitation whose time has passed. */
export type InvitationStatus = 'pending' | 'accepted' | 'expired' | 'revoked';
export const INVITATION_STATUSES: readonly InvitationStatus[] = ['pending', 'accepted', 'expired', 'revoked'];

export function invitationStatus(
  invitation: { status: StoredInvitationStatus; expires_at: Date },
  now: Date,
): InvitationStatus {
  if (invitation.status !== 'pending') return invitation.status;
  return invitation.expires_at.getTime() <= now.getTime() ? 'expired' : 'pending';
}

/** Who may invite with which role: owner/admin invite, and only an owner grants owner or admin. */
export function mayInvite(actorRole: OrgRole | null, role: OrgRole): boolean {
  if (actorRole === null || !isAdmin(actorRole)) return false;
  return isAdmin(role) ? actorRole === 'owner' : true;
}

/** The cohort role an invitation gives: a teacher teaches the cohort, everyone else learns in it. */
export function cohortRoleFor(role: OrgRole): 'teacher' | 'student' {
  return role === 'teacher' ? 'teacher' : 'student';
}

/**
 * The refusals of every operation a holder of the link can do (preview, code request, code verify, accept),
 * in the contract's order: unknown or revoked 404, accepted 409 (even when also past its time), expired 410,
 * organization suspended 403.
 */
export function assertUsable(status: InvitationStatus | null, organizationSuspended: boolean): void {
  if (status === null || status === 'revoked') throw ApiError.notFound('No such invitation.');
  if (status === 'accepted')
    throw ApiError.conflict('invitation_already_accepted', 'This invitation has already been accepted.');
  if (status === 'expired')
    throw ApiError.gone('invitation_expired', 'This invitation has expired. Ask for a new one.');
  if (organizationSuspended) throw ApiError.forbidden('This organization is suspended.', 'organization_suspended');
}
