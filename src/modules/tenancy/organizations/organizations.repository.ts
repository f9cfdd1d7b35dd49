import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { db } from '@/core/database/db';
import { SharedCache } from '@/core/cache/cache';
import { InvalidationBus } from '@/core/cache/invalidation-bus';
import type { Membership, OrgRole } from '@/core/auth/tenancy';
import type { Tx } from '@/core/database/transaction';
import { OrganizationEntity } from './entities/organization.entity';
import { orgAny, orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface MembershipRow {
  organization_id: string;
  user_id: string;
  role: OrgRole;
  joined_at: Date;
}

/**
 * Organizations and memberships. Both are read on every scoped request, so reads by id are cached across
 * instances and every write here invalidates them.
 */
@Injectable()
export class OrganizationsRepository {
  private readonly orgCache: SharedCache<OrganizationEntity>;
  private readonly membershipCache: SharedCache<Membership>;

  constructor(
    @InjectRepository(OrganizationEntity) private readonly orgs: Repository<OrganizationEntity>,
    private readonly dataSource: DataSource,
    bus: InvalidationBus,
  ) {
    this.orgCache = new SharedCache<OrganizationEntity>('organization', bus, { max: 20_000, ttlMs: 60_000 });
    this.membershipCache = new SharedCache<Membership>('membership', bus, { max: 200_000, ttlMs: 60_000 });
  }

  findById(id: string, tx?: Tx): Promise<OrganizationEntity | null> {
    if (tx) return tx.manager.getRepository(OrganizationEntity).findOneBy({ id });
    return this.orgCache.getOrLoad(id, () => this.orgs.findOneBy({ id }));
  }

  findByIds(ids: string[]): Promise<OrganizationEntity[]> {
    return ids.length
      ? this.orgs.createQueryBuilder('o').where('o.id = ANY(:ids)', { ids }).getMany()
      : Promise.resolve([]);
  }

  slugTaken(slug: string): Promise<boolean> {
    return this.orgs.existsBy({ slug });
  }

  async insert(values: Partial<OrganizationEntity>, tx: Tx): Promise<OrganizationEntity> {
    const repo = tx.manager.getRepository(OrganizationEntity);
    const saved = await repo.save(repo.create(values));
    return saved;
  }

  async update(id: string, changes: Partial<OrganizationEntity>, now: Date, tx?: Tx): Promise<void> {
    await (tx?.manager.getRepository(OrganizationEntity) ?? this.orgs).update({ id }, { ...changes, updatedAt: now });
    await this.orgCache.invalidate(id, tx);
  }

  /**
   * The person's membership, from the shared cache; inside a transaction read through it and not cached (what the
   * transaction sees may still roll back, and a read on the pool would wait for it on the embedded database).
   */
  membership(organizationId: string, userId: string, tx?: Tx): Promise<Membership | null> {
    if (tx) return this.readMembership(organizationId, userId, tx);
    return this.membershipCache.getOrLoad(`${organizationId}:${userId}`, () =>
      this.readMembership(organizationId, userId),
    );
  }

  private async readMembership(organizationId: string, userId: string, tx?: Tx): Promise<Membership | null> {
    const rows = await db(this.dataSource, tx).query<MembershipRow[]>(
      // A suspended membership (SCIM `active: false`) opens nothing: the guard, sessions and tokens see none.
      `SELECT organization_id, user_id, role FROM memberships
       WHERE ${orgEq(1)} AND user_id = $2 AND suspended_at IS NULL`,
      [organizationId, userId],
    );
    const row = rows[0];
    return row ? { organizationId: row.organization_id, userId: row.user_id, role: row.role } : null;
  }

  async membershipsOf(userId: string): Promise<MembershipRow[]> {
    return this.dataSource.query<MembershipRow[]>(
      `${tenancyExempt('person-across-organizations')} SELECT organization_id, user_id, role, joined_at FROM memberships WHERE user_id = $1 ORDER BY joined_at`,
      [userId],
    );
  }

  /** The person's memberships in organizations that are not suspended. */
  async activeMembershipsOf(userId: string): Promise<MembershipRow[]> {
    return this.dataSource.query<MembershipRow[]>(
      `${tenancyExempt('person-across-organizations')} SELECT m.organization_id, m.user_id, m.role, m.joined_at FROM memberships m
       JOIN organizations o ON o.id = m.organization_id AND o.status = 'active'
       WHERE m.user_id = $1 AND m.suspended_at IS NULL ORDER BY m.joined_at`,
      [userId],
    );
  }

  /** Which of these ids are organizations. */
  async existingIds(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.dataSource.query<{ id: string }[]>(
      `SELECT id FROM organizations WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Distinct member ids after `afterUserId` in id order, of active organizations, optionally limited to some
   * organizations and roles (keyset batches of a fan-out; one organization reads its primary key in order).
   */
  async memberIdsAfter(
    filter: { organizationIds: readonly string[] | null; roles: readonly OrgRole[] | null },
    afterUserId: string | null,
    limit: number,
  ): Promise<string[]> {
    const rows = await this.dataSource.query<{ user_id: string }[]>(
      `SELECT DISTINCT m.user_id FROM memberships m
       JOIN organizations o ON o.id = m.organization_id AND o.status = 'active'
       WHERE ($1::uuid[] IS NULL OR ${orgAny(1, 'm')})
         AND ($2::text[] IS NULL OR m.role = ANY($2::text[]))
         AND ($3::uuid IS NULL OR m.user_id > $3::uuid)
       ORDER BY m.user_id LIMIT $4`,
      [filter.organizationIds, filter.roles, afterUserId, limit],
    );
    return rows.map((r) => r.user_id);
  }

  /** Adds the membership; false when the person already is a member (the existing role is kept). */
  async addMember(organizationId: string, userId: string, role: OrgRole, now: Date, tx?: Tx): Promise<boolean> {
    const rows = await db(this.dataSource, tx).query<{ user_id: string }[]>(
      `INSERT INTO memberships (organization_id, user_id, role, joined_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id, user_id) DO NOTHING RETURNING user_id`,
      [organizationId, userId, role, now],
    );
    if (rows.length === 1) await this.membershipCreated([`${organizationId}:${userId}`], tx);
    return rows.length === 1;
  }

  /**
   * `addMember` in one statement when the organization has no member limit (read in the same statement): answers
   * 'added', 'member' (already one) or 'limited' (the organization has a limit, or does not exist: the caller
   * takes the way with the limit's lock and count). `alsoWhenAdded` adds a data-modifying CTE that runs only when
   * the member was added (given `$<firstParam>` and that condition).
   */
  async addMemberUnlimited(
    organizationId: string,
    userId: string,
    role: OrgRole,
    now: Date,
    tx: Tx,
    alsoWhenAdded?: (firstParam: number, when: string) => { sql: string; params: unknown[] },
  ): Promise<'added' | 'member' | 'limited'> {
    // Another owner's write in the same statement, only when the member was added (the `member.joined` event).
    const also = alsoWhenAdded?.(5, 'EXISTS (SELECT 1 FROM added)');
    const [row] = await tx.manager.query<{ unlimited: boolean; added: boolean }[]>(
      `WITH o AS (SELECT id FROM organizations WHERE id = $1 AND member_limit IS NULL),
       added AS (
         INSERT INTO memberships (organization_id, user_id, role, joined_at) SELECT o.id, $2, $3, $4 FROM o
         ON CONFLICT (organization_id, user_id) DO NOTHING RETURNING user_id)${also ? `, ${also.sql}` : ''}
       SELECT EXISTS (SELECT 1 FROM o) AS unlimited, EXISTS (SELECT 1 FROM added) AS added`,
      [organizationId, userId, role, now, ...(also?.params ?? [])],
    );
    if (!row?.unlimited) return 'limited';
    if (!row.added) return 'member';
    await this.membershipCreated([`${organizationId}:${userId}`], tx);
    return 'added';
  }

  /**
   * Memberships this statement created (none existed): nothing can be cached for them, since a look-up that finds no
   * membership is never cached, so there is nothing to drop before the commit. Instances are still told once it has
   * committed (at once without a transaction), which also drops a copy of an earlier membership of the same key whose
   * removal's message had not reached them yet. One Redis round trip, outside the transaction.
   */
  private async membershipCreated(keys: string[], tx?: Tx): Promise<void> {
    if (keys.length === 0) return;
    if (tx) tx.afterCommit(() => this.membershipCache.invalidateMany(keys));
    else await this.membershipCache.invalidateMany(keys);
  }

  /** Of these people, those who are members of the organization (read in the transaction when given). */
  async membersAmong(organizationId: string, userIds: readonly string[], tx?: Tx): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await db(this.dataSource, tx).query<{ user_id: string }[]>(
      `SELECT user_id FROM memberships WHERE ${orgEq(1)} AND user_id = ANY($2::uuid[])`,
      [organizationId, userIds],
    );
    return new Set(rows.map((r) => r.user_id));
  }

  /** `addMember` for many people in one statement: answers the ids really added (the others were members). */
  async addMembers(
    organizationId: string,
    members: readonly { userId: string; role: OrgRole }[],
    now: Date,
    tx: Tx,
  ): Promise<Set<string>> {
    if (members.length === 0) return new Set();
    const rows = await tx.manager.query<{ user_id: string }[]>(
      `INSERT INTO memberships (organization_id, user_id, role, joined_at)
       SELECT $1, u, r, $4 FROM unnest($2::uuid[], $3::text[]) AS x(u, r)
       ON CONFLICT (organization_id, user_id) DO NOTHING RETURNING user_id`,
      [organizationId, members.map((m) => m.userId), members.map((m) => m.role), now],
    );
    await this.membershipCreated(
      rows.map((r) => `${organizationId}:${r.user_id}`),
      tx,
    );
    return new Set(rows.map((r) => r.user_id));
  }

  /** Sets the role; returns the role it had (the joined row is read before the update), null for no member. */
  async setRole(organizationId: string, userId: string, role: OrgRole, tx: Tx): Promise<OrgRole | null> {
    const [rows] = await tx.manager.query<[{ previous: OrgRole }[], number]>(
      `UPDATE memberships m SET role = $3 FROM memberships old
       WHERE ${orgEq(1, 'm')} AND m.user_id = $2
         AND old.organization_id = m.organization_id AND old.user_id = m.user_id
       RETURNING old.role AS previous`,
      [organizationId, userId, role],
    );
    await this.membershipCache.invalidate(`${organizationId}:${userId}`, tx);
    return rows[0]?.previous ?? null;
  }

  async removeMember(organizationId: string, userId: string, tx: Tx): Promise<boolean> {
    const [, count] = await tx.manager.query<[unknown[], number]>(
      `DELETE FROM memberships WHERE ${orgEq(1)} AND user_id = $2`,
      [organizationId, userId],
    );
    await this.membershipCache.invalidate(`${organizationId}:${userId}`, tx);
    return count === 1;
  }

  /**
   * Suspends (a time) or restores (null) a membership; returns whether it changed. Every instance drops its cached
   * copy in the same transaction's wake, so the person's next request already finds no membership.
   */
  async setSuspended(organizationId: string, userId: string, at: Date | null, tx: Tx): Promise<boolean> {
    const [rows] = await db(this.dataSource, tx).query<[unknown[], number]>(
      `UPDATE memberships SET suspended_at = $3 WHERE ${orgEq(1)} AND user_id = $2
         AND (suspended_at IS NULL) = ($3::timestamptz IS NOT NULL) RETURNING user_id`,
      [organizationId, userId, at],
    );
    await this.membershipCache.invalidate(`${organizationId}:${userId}`, tx);
    return rows.length > 0;
  }

  /** Locks the organization's memberships row set for a role change (no two changes can remove the last owner). */
  async lockMembers(organizationId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE`, [organizationId]);
  }

  async countByRole(organizationId: string, role: OrgRole, tx?: Tx): Promise<number> {
    const [row] = await db(this.dataSource, tx).query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM memberships WHERE ${orgEq(1)} AND role = $2`,
      [organizationId, role],
    );
    return row?.n ?? 0;
  }

  /** The platform list (16.1): ids and member counts of a page, most recent first. */
  async adminPage(
    filter: { q?: string; status?: string; plan?: string },
    page: { limit: number; offset: number },
  ): Promise<{ rows: { id: string; members_count: number }[]; total: number }> {
    const q = filter.q ? filter.q.replace(/[\\%_]/g, (c) => `\\${c}`) : null;
    const where = `($1::text IS NULL OR o.name ILIKE '%' || $1 || '%' OR o.slug ILIKE '%' || $1 || '%')
      AND ($2::text IS NULL OR o.status = $2) AND ($3::text IS NULL OR o.plan = $3)`;
    const params = [q, filter.status ?? null, filter.plan ?? null];
    const [rows, total] = await Promise.all([
      this.dataSource.query<{ id: string; members_count: number }[]>(
        `${tenancyExempt('platform-admin')} SELECT o.id, (SELECT count(*)::int FROM memberships m WHERE m.organization_id = o.id) AS members_count
         FROM organizations o WHERE ${where} ORDER BY o.created_at DESC, o.id DESC LIMIT $4 OFFSET $5`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM organizations o WHERE ${where}`, params),
    ]);
    return { rows, total: total[0].n };
  }

  async countMembers(organizationId: string, tx?: Tx): Promise<number> {
    const [row] = await db(this.dataSource, tx).query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM memberships WHERE ${orgEq(1)}`,
      [organizationId],
    );
    return row?.n ?? 0;
  }

  /** Whether two people share at least one organization. */
  async shareAnOrganization(a: string, b: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `${tenancyExempt('person-across-organizations')} SELECT 1 FROM memberships m1 JOIN memberships m2 ON m2.organization_id = m1.organization_id
       WHERE m1.user_id = $1 AND m2.user_id = $2 LIMIT 1`,
      [a, b],
    );
    return rows.length > 0;
  }
}
