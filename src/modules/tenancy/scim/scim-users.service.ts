import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { type AuditEntry, AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { isUniqueViolation } from '@/core/database/constraint-violation';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { isUuid } from '@/core/http/uuid';
import { ApiKeysService } from '@/modules/identity/api-keys';
import { TokenService } from '@/modules/identity/oauth';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import { ScimError, SCIM_BASE_PATH } from './scim-errors';
import { parseScimFilter } from './scim-filter';
import { type DirectoryAttributes, ScimDirectoryRepository, type ScimUserRow } from './scim-directory.repository';
import { applyUserPatch, ciGet, normalizePatch, toBoolean } from './scim-patch-ops';
import { ENTERPRISE_KEYS, type ScimResource, toScimUser } from './scim-resources';
import { SCHEMA } from './scim-schemas';
import type { ScimTokenRow } from './scim-tokens.repository';

export interface ListQuery {
  filter?: string;
  startIndex: number;
  count: number;
}

interface UserInput {
  userName: string;
  /** The account's email: userName when it is one, else the primary (or work) email. */
  email: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  directory: DirectoryAttributes;
  active: boolean;
  locale: 'es' | 'en' | null;
}

const KNOWN_USER_SCHEMAS = new Set([SCHEMA.user, SCHEMA.enterpriseUser].map((s) => s.toLowerCase()));
const MAX_TEXT = 256;

/**
 * SCIM Users are the organization's members (extensions-v3 2.3). Creating one finds or creates the account by
 * email and makes it a member with the token's default role; `active: false` suspends the membership (the
 * person's tokens bound to the organization are refused from their next request); DELETE ends the membership and
 * keeps the account. Owners are out of SCIM's reach. Every change is audited with the token as actor.
 */
@Injectable()
export class ScimUsersService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: ScimDirectoryRepository,
    private readonly orgs: OrganizationsService,
    private readonly users: UsersService,
    private readonly apiKeys: ApiKeysService,
    private readonly oauthTokens: TokenService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  get base(): string {
    return `${this.config.baseUrl}${SCIM_BASE_PATH}`;
  }

  async list(token: ScimTokenRow, query: ListQuery): Promise<{ resources: ScimResource[]; total: number }> {
    const filter = query.filter !== undefined && query.filter.trim() !== '' ? parseScimFilter(query.filter) : null;
    const { rows, total } = await this.directory.listUsers(token.organization_id, filter, {
      offset: query.startIndex - 1,
      limit: query.count,
    });
    return { resources: rows.map((r) => toScimUser(this.base, r)), total };
  }

  async get(token: ScimTokenRow, id: string): Promise<ScimResource> {
    return toScimUser(this.base, await this.find(token, id));
  }

  async create(token: ScimTokenRow, body: unknown): Promise<ScimResource> {
    const input = parseUser(body);
    const organizationId = token.organization_id;
    // No name lock and no look-up first: the constraints decide, in the statements that write. Another member with
    // this userName is a clash on scim_members_user_name_uq (the directory's names), or this same account already
    // being a member (a member without a directory row has their email as userName, and this userName is then the
    // email the account is found by); both answer 409 uniqueness and roll everything back. Two creations of one
    // name at once wait on each other's row in the unique index, and the second fails the same way.
    const created = await this.transactions.run(async (tx) => {
      const { user } = await this.users.findOrCreate(input.email, input.locale ?? 'es', tx);
      if (!(await this.orgs.addMember(organizationId, user.id, token.default_role, null, tx))) {
        throw ScimError.uniqueness('This person is already a member of the organization.');
      }
      let row: ScimUserRow | null;
      try {
        // The audit line goes in with the directory row (one statement).
        const audit = this.auditEntry(token, 'scim.user_created', user.id, {
          role: token.default_role,
          active: input.active,
        });
        row = await this.directory.upsertDirectoryReturning(organizationId, user.id, input, this.clock.now(), tx, (n) =>
          this.audit.insertCte('audit', audit, n),
        );
      } catch (err) {
        if (isUniqueViolation(err, 'scim_members_user_name_uq')) {
          throw ScimError.uniqueness(`A member with userName "${input.userName}" already exists.`);
        }
        throw err;
      }
      if (!input.active) await this.suspend(organizationId, user.id, tx);
      return { userId: user.id, row: input.active ? row : null };
    });
    this.directory.noteCreated(organizationId);
    // Suspended at once (`active: false`): read again after the suspension.
    return created.row ? toScimUser(this.base, created.row) : this.get(token, created.userId);
  }

  async replace(token: ScimTokenRow, id: string, body: unknown): Promise<ScimResource> {
    const input = parseUser(body);
    await this.update(token, id, () => input);
    return this.get(token, id);
  }

  async patch(token: ScimTokenRow, id: string, body: unknown): Promise<ScimResource> {
    const ops = normalizePatch(body);
    await this.update(token, id, (current) => {
      const resource = toScimUser(this.base, current);
      const patched = applyUserPatch({ ...resource, schemas: [SCHEMA.user, SCHEMA.enterpriseUser] }, ops);
      return parseUser(patched);
    });
    return this.get(token, id);
  }

  async remove(token: ScimTokenRow, id: string): Promise<void> {
    const organizationId = token.organization_id;
    await this.transactions.run(async (tx) => {
      await this.orgs.lockMembers(organizationId, tx);
      const current = await this.findInTx(token, id, tx);
      refuseOwner(current);
      await this.orgs.removeMember(organizationId, current.user_id, null, tx);
      await this.apiKeys.revokeAllFor(organizationId, current.user_id, tx);
      await this.oauthTokens.revokeAllFor(organizationId, current.user_id, tx);
      const person = await this.users.findById(current.user_id, tx);
      if (person?.lastOrganizationId === organizationId) await this.users.setLastOrganization(person.id, null, tx);
      await this.record(token, 'scim.user_deleted', current.user_id, tx, { role: current.role });
    });
  }

  private async update(token: ScimTokenRow, id: string, next: (current: ScimUserRow) => UserInput): Promise<void> {
    const organizationId = token.organization_id;
    await this.transactions.run(async (tx) => {
      await this.orgs.lockMembers(organizationId, tx);
      const current = await this.findInTx(token, id, tx);
      refuseOwner(current);
      const input = next(current);
      const currentName = current.user_name ?? current.email;
      if (input.userName.toLowerCase() !== currentName.toLowerCase()) {
        await this.directory.lockNames(organizationId, [input.userName], tx);
        if (await this.directory.userNameTaken(organizationId, input.userName, current.user_id, tx)) {
          throw ScimError.uniqueness(`Another member has userName "${input.userName}".`);
        }
      }
      await this.directory.upsertDirectory(organizationId, current.user_id, input, this.clock.now(), tx);
      await this.record(token, 'scim.user_updated', current.user_id, tx, { active: input.active });
      const active = current.suspended_at === null;
      if (active && !input.active) {
        await this.suspend(organizationId, current.user_id, tx);
        await this.record(token, 'scim.user_deactivated', current.user_id, tx);
      } else if (!active && input.active) {
        await this.orgs.setMemberSuspended(organizationId, current.user_id, false, null, tx);
        await this.record(token, 'scim.user_reactivated', current.user_id, tx);
      }
    });
  }

  /** The existing suspension rule: the membership opens nothing, and stops being the person's active organization. */
  private async suspend(organizationId: string, userId: string, tx: Tx): Promise<void> {
    await this.orgs.setMemberSuspended(organizationId, userId, true, null, tx);
    const person = await this.users.findById(userId, tx);
    if (person?.lastOrganizationId === organizationId) await this.users.setLastOrganization(userId, null, tx);
  }

  private async find(token: ScimTokenRow, id: string): Promise<ScimUserRow> {
    const row = isUuid(id) ? await this.directory.findUser(token.organization_id, id.toLowerCase()) : null;
    if (!row) throw ScimError.notFound(`User ${id} not found.`);
    return row;
  }

  private async findInTx(token: ScimTokenRow, id: string, tx: Tx): Promise<ScimUserRow> {
    const row = isUuid(id) ? await this.directory.findUser(token.organization_id, id.toLowerCase(), tx) : null;
    if (!row) throw ScimError.notFound(`User ${id} not found.`);
    return row;
  }

  private record(
    token: ScimTokenRow,
    action: string,
    userId: string,
    tx: Tx,
    metadata: Record<string, string | boolean> = {},
  ): Promise<void> {
    return this.audit.record(this.auditEntry(token, action, userId, metadata), tx);
  }

  private auditEntry(
    token: ScimTokenRow,
    action: string,
    userId: string,
    metadata: Record<string, string | boolean> = {},
  ): AuditEntry {
    return {
      action,
      actorId: null,
      organizationId: token.organization_id,
      targetType: 'user',
      targetId: userId,
      metadata: { actor_type: 'scim_token', actor_token_id: token.id, ...metadata },
    };
  }
}

function refuseOwner(row: ScimUserRow): void {
  if (row.role === 'owner') {
    throw ScimError.forbidden('Owners are not managed by SCIM: change or remove them in the organization itself.');
  }
}

function isEmail(value: string): boolean {
  return value.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}

/** The primary email's value, else the work one's, else the first. */
function primaryEmail(emails: unknown): string | null {
  if (!Array.isArray(emails)) return null;
  const list = emails.filter((e): e is Record<string, unknown> => !!e && typeof e === 'object');
  const pick =
    list.find((e) => toBoolean(ciGet(e, 'primary')) === true) ??
    list.find((e) => {
      const type = ciGet(e, 'type');
      return typeof type === 'string' && type.toLowerCase() === 'work';
    }) ??
    list[0];
  const value = pick ? ciGet(pick, 'value') : undefined;
  return typeof value === 'string' && isEmail(value.trim()) ? value.trim() : null;
}

function text(value: unknown, field: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw ScimError.badRequest('invalidValue', `${field} must be a string.`);
  const v = value.trim();
  if (v.length > MAX_TEXT) throw ScimError.badRequest('invalidValue', `${field} is longer than ${MAX_TEXT}.`);
  return v === '' ? null : v;
}

/** A User body (POST/PUT, or the result of a PATCH): attribute names in any case, booleans also as strings. */
export function parseUser(body: unknown): UserInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw ScimError.badRequest('invalidSyntax', 'The body must be a User object.');
  }
  const b = body as Record<string, unknown>;
  const schemas = ciGet(b, 'schemas');
  if (
    !Array.isArray(schemas) ||
    !schemas.every((s) => typeof s === 'string' && KNOWN_USER_SCHEMAS.has(s.toLowerCase())) ||
    !schemas.some((s) => String(s).toLowerCase() === SCHEMA.user.toLowerCase())
  ) {
    throw ScimError.badRequest(
      'invalidSyntax',
      `schemas must name ${SCHEMA.user} (and at most the enterprise extension).`,
    );
  }
  const userName = text(ciGet(b, 'userName'), 'userName');
  if (!userName) throw ScimError.badRequest('invalidValue', 'userName is required.');
  const email = isEmail(userName) ? userName : primaryEmail(ciGet(b, 'emails'));
  if (!email) {
    throw ScimError.badRequest('invalidValue', 'userName, or else the primary email, must be an email address.');
  }
  const activeRaw = ciGet(b, 'active');
  const active = activeRaw === undefined || activeRaw === null ? true : toBoolean(activeRaw);
  if (active === null) throw ScimError.badRequest('invalidValue', 'active must be true or false.');
  const name = (ciGet(b, 'name') ?? {}) as Record<string, unknown>;
  if (typeof name !== 'object') throw ScimError.badRequest('invalidValue', 'name must be an object.');
  const enterpriseKey = Object.keys(b).find((k) => k.toLowerCase() === SCHEMA.enterpriseUser.toLowerCase());
  const enterprise = (enterpriseKey ? b[enterpriseKey] : {}) as Record<string, unknown>;
  const directory: DirectoryAttributes = {};
  for (const key of ENTERPRISE_KEYS) {
    const value = text(enterprise && typeof enterprise === 'object' ? ciGet(enterprise, key) : undefined, key);
    if (value !== null) directory[key] = value;
  }
  const language = text(ciGet(b, 'preferredLanguage') ?? ciGet(b, 'locale'), 'preferredLanguage');
  const lang = language?.slice(0, 2).toLowerCase();
  return {
    userName: userName.toLowerCase(),
    email: email.toLowerCase(),
    externalId: text(ciGet(b, 'externalId'), 'externalId'),
    givenName: text(ciGet(name, 'givenName'), 'name.givenName'),
    familyName: text(ciGet(name, 'familyName'), 'name.familyName'),
    displayName: text(ciGet(b, 'displayName') ?? ciGet(name, 'formatted'), 'displayName'),
    directory,
    active,
    locale: lang === 'es' || lang === 'en' ? lang : null,
  };
}
