import type { Tx } from '@/core/database/transaction';

/**
 * Whether an institute is linked to an organization: a cohort may only name a linked institute. The rule belongs
 * to the institutes area, which depends on this one, so it provides this port (`{ provide: InstituteLinks, ... }`
 * in a global module) instead of this area depending on it.
 */
export abstract class InstituteLinks {
  abstract isLinked(organizationId: string, instituteId: string, tx?: Tx): Promise<boolean>;
}
