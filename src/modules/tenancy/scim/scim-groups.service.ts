import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { isUuid } from '@/core/http/uuid';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { ScimError, SCIM_BASE_PATH } from './scim-errors';
import { parseScimFilter } from './scim-filter';
import { ScimDirectoryRepository, type ScimGroupRow } from './scim-directory.repository';
import { ciGet, normalizePatch } from './scim-patch-ops';
import { type ScimResource, toScimGroup } from './scim-resources';
import { MAX_GROUP_MEMBERS, SCHEMA } from './scim-schemas';
import type { ScimTokenRow } from './scim-tokens.repository';
import type { ListQuery } from './scim-users.service';

interface GroupInput {
  displayName: string;
  externalId: string | null;
  members: string[] | null;
}

/** Entra adds its own schema URN to the groups it creates. */
const GROUP_SCHEMAS = new Set(
  [SCHEMA.group, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'].map((s) =>
    s.toLowerCase(),
  ),
);
const MEMBER_FILTER = /^members\s*\[\s*value\s+eq\s+"([^"]*)"\s*\]$/i;

/**
 * SCIM Groups are the organization's cohorts (extensions-v3 2.4): the name is unique in the organization, members
 * must be members of the organization and join as students (teachers when their organization role is teacher),
 * at most 10 000 per group. Every change is audited with the token as actor.
 */
@Injectable()
export class ScimGroupsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: ScimDirectoryRepository,
    private readonly cohorts: CohortsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  get base(): string {
    return `${this.config.baseUrl}${SCIM_BASE_PATH}`;
  }

  async list(
    token: ScimTokenRow,
    query: ListQuery,
    withMembers: boolean,
  ): Promise<{ resources: ScimResource[]; total: number }> {
    const filter = query.filter !== undefined && query.filter.trim() !== '' ? parseScimFilter(query.filter) : null;
    const { rows, total } = await this.directory.listGroups(token.organization_id, filter, {
      offset: query.startIndex - 1,
      limit: query.count,
    });
    return { resources: await this.toResources(token, rows, withMembers), total };
  }

  async get(token: ScimTokenRow, id: string, withMembers = true): Promise<ScimResource> {
    const row = isUuid(id) ? await this.directory.findGroup(token.organization_id, id.toLowerCase()) : null;
    if (!row) throw ScimError.notFound(`Group ${id} not found.`);
    return (await this.toResources(token, [row], withMembers))[0];
  }

  async create(token: ScimTokenRow, body: unknown): Promise<ScimResource> {
    const input = parseGroup(body);
    const organizationId = token.organization_id;
    const id = await this.transactions.run(async (tx) => {
      await this.lockNames(organizationId, tx);
      if (await this.directory.groupNameTaken(organizationId, input.displayName, null, tx)) {
        throw ScimError.uniqueness(`A group named "${input.displayName}" already exists.`);
      }
      const cohort = await this.cohorts.createForDirectory(organizationId, input.displayName, tx);
      await this.directory.upsertGroup(organizationId, cohort.id, input.externalId, this.clock.now(), tx);
      const added = await this.addMembers(organizationId, cohort.id, input.members ?? [], tx);
      await this.record(token, 'scim.group_created', cohort.id, tx, { members_added: added });
      return cohort.id;
    });
    return this.get(token, id);
  }

  async replace(token: ScimTokenRow, id: string, body: unknown): Promise<ScimResource> {
    const input = parseGroup(body);
    await this.change(token, id, async (current, tx) => {
      await this.setName(token, current, input.displayName, tx);
      await this.directory.upsertGroup(token.organization_id, current.id, input.externalId, this.clock.now(), tx);
      return this.setMembers(token.organization_id, current.id, input.members ?? [], tx);
    });
    return this.get(token, id);
  }

  /**
   * Operations on `members` (`add`, `remove` by `members[value eq "id"]` or by a value list, `replace`),
   * `displayName` and `externalId`, with or without `path`.
   */
  async patch(token: ScimTokenRow, id: string, body: unknown, withMembers: boolean): Promise<ScimResource | null> {
    const ops = normalizePatch(body);
    const organizationId = token.organization_id;
    await this.change(token, id, async (current, tx) => {
      let added = 0;
      let removed = 0;
      let externalId: string | null | undefined;
      for (const op of ops) {
        const path = op.path!.replace(/^urn:ietf:params:scim:schemas:core:2\.0:group:/i, '');
        const single = MEMBER_FILTER.exec(path);
        const attr = path.toLowerCase();
        if (single) {
          if (op.op !== 'remove') throw ScimError.badRequest('invalidPath', 'Only remove takes a member filter.');
          removed += (await this.cohorts.removeMembers(organizationId, current.id, [memberId(single[1])], tx)).length;
        } else if (attr === 'members') {
          const ids = op.value === undefined ? null : memberIds(op.value);
          if (op.op === 'add') added += await this.addMembers(organizationId, current.id, ids ?? [], tx);
          else if (op.op === 'remove') {
            const targets =
              ids ?? (await this.directory.groupMembers(organizationId, [current.id], tx)).map((m) => m.user_id);
            removed += (await this.cohorts.removeMembers(organizationId, current.id, targets, tx)).length;
          } else {
            const r = await this.setMembers(organizationId, current.id, ids ?? [], tx);
            added += r.added;
            removed += r.removed;
          }
        } else if (attr === 'displayname') {
          if (op.op === 'remove') throw ScimError.badRequest('mutability', 'displayName is required.');
          await this.setName(token, current, requiredName(op.value), tx);
        } else if (attr === 'externalid') {
          externalId = op.op === 'remove' ? null : optionalText(op.value, 'externalId');
        } else if (attr === 'id' && op.op === 'replace' && String(op.value).toLowerCase() === current.id) {
          // Okta renames a group with a path-less replace that repeats the group's own id: nothing to change.
          continue;
        } else if (attr === 'id' || attr.startsWith('meta')) {
          throw ScimError.badRequest('mutability', `"${op.path}" is read-only.`);
        } else {
          throw ScimError.badRequest('invalidPath', `Unknown attribute "${op.path}".`);
        }
      }
      if (externalId !== undefined) {
        await this.directory.upsertGroup(organizationId, current.id, externalId, this.clock.now(), tx);
      }
      return { added, removed };
    });
    return withMembers ? this.get(token, id) : null;
  }

  async remove(token: ScimTokenRow, id: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const gone = isUuid(id) && (await this.cohorts.deleteForDirectory(token.organization_id, id.toLowerCase(), tx));
      if (!gone) throw ScimError.notFound(`Group ${id} not found.`);
      await this.record(token, 'scim.group_deleted', id.toLowerCase(), tx);
    });
  }

  private async change(
    token: ScimTokenRow,
    id: string,
    apply: (current: ScimGroupRow, tx: Tx) => Promise<{ added: number; removed: number }>,
  ): Promise<void> {
    await this.transactions.run(async (tx) => {
      const current = isUuid(id) ? await this.directory.findGroup(token.organization_id, id.toLowerCase(), tx) : null;
      if (!current) throw ScimError.notFound(`Group ${id} not found.`);
      const { added, removed } = await apply(current, tx);
      await this.record(token, 'scim.group_updated', current.id, tx, {
        members_added: added,
        members_removed: removed,
      });
    });
  }

  private async setName(token: ScimTokenRow, current: ScimGroupRow, name: string, tx: Tx): Promise<void> {
    if (name === current.name) return;
    await this.lockNames(token.organization_id, tx);
    if (await this.directory.groupNameTaken(token.organization_id, name, current.id, tx)) {
      throw ScimError.uniqueness(`A group named "${name}" already exists.`);
    }
    await this.cohorts.renameForDirectory(token.organization_id, current.id, name, tx);
  }

  /** Adds members of the organization (400 `invalidValue` for anyone else); returns how many were given. */
  private async addMembers(organizationId: string, cohortId: string, ids: readonly string[], tx: Tx): Promise<number> {
    if (ids.length === 0) return 0;
    const roles = await this.directory.membersAmong(organizationId, ids, tx);
    const strangers = ids.filter((id) => !roles.has(id));
    if (strangers.length > 0) {
      throw ScimError.badRequest(
        'invalidValue',
        `Not members of the organization: ${strangers.slice(0, 5).join(', ')}.`,
      );
    }
    const existing = await this.directory.groupMembers(organizationId, [cohortId], tx);
    if (new Set([...existing.map((m) => m.user_id), ...ids]).size > MAX_GROUP_MEMBERS) {
      throw ScimError.badRequest('tooMany', `A group has at most ${MAX_GROUP_MEMBERS} members.`);
    }
    await this.cohorts.addMembers(
      organizationId,
      ids.map((userId) => ({ cohortId, userId, role: roles.get(userId) === 'teacher' ? 'teacher' : 'student' })),
      tx,
    );
    return ids.length;
  }

  private async setMembers(
    organizationId: string,
    cohortId: string,
    ids: readonly string[],
    tx: Tx,
  ): Promise<{ added: number; removed: number }> {
    if (ids.length > MAX_GROUP_MEMBERS) {
      throw ScimError.badRequest('tooMany', `A group has at most ${MAX_GROUP_MEMBERS} members.`);
    }
    const wanted = new Set(ids);
    const current = (await this.directory.groupMembers(organizationId, [cohortId], tx)).map((m) => m.user_id);
    const toRemove = current.filter((id) => !wanted.has(id));
    const removed = (await this.cohorts.removeMembers(organizationId, cohortId, toRemove, tx)).length;
    const have = new Set(current);
    const added = await this.addMembers(
      organizationId,
      cohortId,
      ids.filter((id) => !have.has(id)),
      tx,
    );
    return { added, removed };
  }

  /** Serializes name changes per organization, so two creations cannot both take one name. */
  private async lockNames(organizationId: string, tx: Tx): Promise<void> {
    await this.directory.lockGroupNames(organizationId, tx);
  }

  private async toResources(token: ScimTokenRow, rows: ScimGroupRow[], withMembers: boolean): Promise<ScimResource[]> {
    const members = withMembers
      ? await this.directory.groupMembers(
          token.organization_id,
          rows.map((r) => r.id),
        )
      : [];
    return rows.map((row) =>
      toScimGroup(this.base, row, withMembers ? members.filter((m) => m.cohort_id === row.id) : null),
    );
  }

  private record(
    token: ScimTokenRow,
    action: string,
    cohortId: string,
    tx: Tx,
    metadata: Record<string, number> = {},
  ): Promise<void> {
    return this.audit.record(
      {
        action,
        actorId: null,
        organizationId: token.organization_id,
        targetType: 'cohort',
        targetId: cohortId,
        metadata: { actor_type: 'scim_token', actor_token_id: token.id, ...metadata },
      },
      tx,
    );
  }
}

function memberId(value: unknown): string {
  if (typeof value !== 'string' || !isUuid(value)) {
    throw ScimError.badRequest('invalidValue', `"${String(value)}" is not a member of the organization.`);
  }
  return value.toLowerCase();
}

function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length > MAX_GROUP_MEMBERS + 1) {
    throw ScimError.badRequest('tooMany', `A group has at most ${MAX_GROUP_MEMBERS} members.`);
  }
  const ids = list.map((m) => {
    if (!m || typeof m !== 'object') throw ScimError.badRequest('invalidValue', 'A member is {"value": "<user id>"}.');
    return memberId(ciGet(m as Record<string, unknown>, 'value'));
  });
  return [...new Set(ids)];
}

function requiredName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim().length > 120) {
    throw ScimError.badRequest('invalidValue', 'displayName is 1..120 characters.');
  }
  return value.trim();
}

function optionalText(value: unknown, field: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > 256) {
    throw ScimError.badRequest('invalidValue', `${field} must be a string of at most 256 characters.`);
  }
  return value;
}

export function parseGroup(body: unknown): GroupInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw ScimError.badRequest('invalidSyntax', 'The body must be a Group object.');
  }
  const b = body as Record<string, unknown>;
  const schemas = ciGet(b, 'schemas');
  if (
    !Array.isArray(schemas) ||
    schemas.length === 0 ||
    !schemas.every((s) => typeof s === 'string' && GROUP_SCHEMAS.has(s.toLowerCase())) ||
    !schemas.some((s) => String(s).toLowerCase() === SCHEMA.group.toLowerCase())
  ) {
    throw ScimError.badRequest('invalidSyntax', `schemas must be ["${SCHEMA.group}"].`);
  }
  const members = ciGet(b, 'members');
  return {
    displayName: requiredName(ciGet(b, 'displayName')),
    externalId: optionalText(ciGet(b, 'externalId'), 'externalId'),
    members: members === undefined || members === null ? null : memberIds(members),
  };
}
