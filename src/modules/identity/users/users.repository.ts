import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, Repository } from 'typeorm';
import { db } from '@/core/database/db';
import { SharedCache } from '@/core/cache/cache';
import { InvalidationBus } from '@/core/cache/invalidation-bus';
import type { Tx } from '@/core/database/transaction';
import type { Locale } from '@/core/mail/mail-template';
import { UserEntity } from './entities/user.entity';

/** What a bulk email needs to reach a person. */
export interface MailContact {
  id: string;
  email: string;
  locale: Locale;
}

/**
 * Accounts are platform-level (not tenant data): a person belongs to several organizations. Reads by id are
 * cached across instances (every authenticated request needs the account); every write here invalidates.
 */
@Injectable()
export class UsersRepository {
  private readonly cache: SharedCache<UserEntity>;

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    bus: InvalidationBus,
  ) {
    this.cache = new SharedCache<UserEntity>('user', bus, { max: 50_000, ttlMs: 60_000 });
  }

  private repo(tx?: Tx | EntityManager): Repository<UserEntity> {
    if (!tx) return this.users;
    const manager = 'manager' in tx ? tx.manager : tx;
    return manager.getRepository(UserEntity);
  }

  findById(id: string, tx?: Tx | EntityManager): Promise<UserEntity | null> {
    if (tx) return this.repo(tx).findOneBy({ id });
    return this.cache.getOrLoad(id, () => this.users.findOneBy({ id }));
  }

  findByEmail(email: string, tx?: Tx): Promise<UserEntity | null> {
    return this.repo(tx).findOneBy({ email });
  }

  /** Accounts of these (normalized) addresses, in one query. */
  findByEmails(emails: readonly string[], tx?: Tx): Promise<UserEntity[]> {
    return emails.length === 0
      ? Promise.resolve([])
      : this.repo(tx)
          .createQueryBuilder('u')
          .where('u.email = ANY(:emails)', { emails: [...emails] })
          .getMany();
  }

  /** The accounts of these ids that exist (each once), through the cache (the misses in one query). */
  async findByIds(ids: string[]): Promise<UserEntity[]> {
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    const found = await this.cache.getOrLoadMany(unique, async (missing) => {
      const rows = await this.users.createQueryBuilder('u').where('u.id = ANY(:ids)', { ids: missing }).getMany();
      return new Map(rows.map((u) => [u.id, u]));
    });
    return unique.flatMap((id) => found.get(id) ?? []);
  }

  /** Ids of accounts not erased after `afterId`, in id order (keyset batches over every account, on the primary key). */
  async idsAfter(afterId: string | null, limit: number): Promise<string[]> {
    const rows = await this.users.manager.query<{ id: string }[]>(
      `SELECT id FROM users WHERE ($1::uuid IS NULL OR id > $1::uuid) AND erased_at IS NULL ORDER BY id LIMIT $2`,
      [afterId, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Address and language of these accounts (erased ones left out); with `consentKind`, only those whose latest consent of that kind is
   * granted (consents are a history: the newest row wins; `consents_user_kind_idx` serves each look-up).
   */
  async mailContacts(ids: readonly string[], consentKind: string | null): Promise<MailContact[]> {
    if (ids.length === 0) return [];
    return this.users.manager.query<MailContact[]>(
      `SELECT u.id, u.email, u.locale FROM users u
       WHERE u.id = ANY($1::uuid[]) AND u.erased_at IS NULL
         AND ($2::text IS NULL OR (
           SELECT c.granted FROM consents c WHERE c.user_id = u.id AND c.kind = $2
           ORDER BY c.granted_at DESC LIMIT 1) IS TRUE)
       ORDER BY u.id`,
      [ids, consentKind],
    );
  }

  /**
   * Creates the account in one statement unless its email has one or its username is taken (then null: the caller
   * tells the two apart). A handle taken by a concurrent insert still raises the unique violation.
   */
  /**
   * The account of this (normalized) email, or a new one with this handle, in one statement: `created` tells which.
   * Null when neither (the handle is taken, or another transaction created the email meanwhile: read it again).
   * `ON CONFLICT DO NOTHING` covers the email and the handle alike, so a concurrent creation never aborts the
   * caller's transaction with a unique violation.
   */
  async findOrInsert(
    values: { email: string; username: string; locale: string; platformRoles: string[]; now: Date },
    tx?: Tx,
  ): Promise<{ user: UserEntity; created: boolean } | null> {
    const manager = db(this.users.manager.connection, tx);
    const rows = await manager.query<Record<string, unknown>[]>(
      `WITH found AS (SELECT * FROM users WHERE email = $1),
       created AS (
         INSERT INTO users (email, username, locale, platform_roles, created_at, updated_at)
         SELECT $1, $2, $3, $4, $5, $5
         WHERE NOT EXISTS (SELECT 1 FROM found) AND NOT EXISTS (SELECT 1 FROM users WHERE username = $2)
         ON CONFLICT DO NOTHING RETURNING *)
       SELECT true AS inserted, * FROM created UNION ALL SELECT false AS inserted, * FROM found`,
      [values.email, values.username, values.locale, values.platformRoles, values.now],
    );
    const row = rows[0];
    return row ? { user: this.hydrate(row), created: row.inserted === true } : null;
  }

  /** An entity from a raw `users` row, converted as TypeORM converts what it reads. */
  private hydrate(row: Record<string, unknown>): UserEntity {
    const entity = this.users.create();
    const driver = this.users.manager.connection.driver;
    for (const column of this.users.metadata.columns) {
      column.setEntityValue(entity, driver.prepareHydratedValue(row[column.databaseName], column));
    }
    return entity;
  }

  async update(id: string, changes: Partial<UserEntity>, now: Date, tx?: Tx): Promise<void> {
    await this.repo(tx).update({ id }, { ...changes, updatedAt: now });
    await this.cache.invalidate(id, tx);
  }

  /** Raises token_version (ending every access token issued before) and returns the new value. */
  async raiseTokenVersion(id: string, now: Date, tx?: Tx): Promise<number> {
    const manager = db(this.users.manager.connection, tx);
    const [rows] = await manager.query<[{ token_version: number }[], number]>(
      `UPDATE users SET token_version = token_version + 1, updated_at = $2 WHERE id = $1 RETURNING token_version`,
      [id, now],
    );
    await this.cache.invalidate(id, tx);
    return rows[0].token_version;
  }

  /**
   * Turns the account into the tombstone of an erasure (extensions-v2 17.3 step 4): certificates and audit entries
   * keep referring to the row, but nothing in it says who the person was. Idempotent: `erased_at` and the raised
   * `token_version` are set once.
   */
  async tombstone(id: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE users SET
         email = 'erased+' || id::text || '@erased.invalid',
         username = 'erased-' || left(replace(id::text, '-', ''), 12),
         name = NULL, headline = NULL, bio = NULL, location = NULL, avatar_url = NULL, avatar = NULL,
         two_factor_secret = NULL, two_factor_enabled_at = NULL, two_factor_last_step = NULL,
         age_bracket = NULL, age_bracket_managed_by = NULL, platform_roles = '{}', time_zone = 'UTC', public_profile = false,
         last_organization_id = NULL,
         token_version = token_version + CASE WHEN erased_at IS NULL THEN 1 ELSE 0 END,
         updated_at = CASE WHEN erased_at IS NULL THEN $2 ELSE updated_at END,
         erased_at = COALESCE(erased_at, $2)
       WHERE id = $1`,
      [id, now],
    );
    await this.cache.invalidate(id, tx);
  }

  /** Records the TOTP time step just accepted, only if it is newer than the last one (a code works once). */
  async acceptTotpStep(id: string, step: number): Promise<boolean> {
    const [, count] = await this.users.manager.query<[unknown[], number]>(
      `UPDATE users SET two_factor_last_step = $2
       WHERE id = $1 AND (two_factor_last_step IS NULL OR two_factor_last_step < $2)`,
      [id, step],
    );
    await this.cache.invalidate(id);
    return count === 1;
  }

  /**
   * Appends a withdrawal of a consent (terms version 'unsubscribe', no fingerprint) when the newest row of that kind
   * is a grant; nothing otherwise (never granted, or already withdrawn).
   */
  async withdrawConsent(userId: string, kind: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `INSERT INTO consents (user_id, kind, terms_version, ip_fingerprint, granted_at, granted)
       SELECT $1, $2, 'unsubscribe', NULL, $3, false
       WHERE (SELECT c.granted FROM consents c WHERE c.user_id = $1 AND c.kind = $2
              ORDER BY c.granted_at DESC LIMIT 1) IS TRUE`,
      [userId, kind, now],
    );
  }

  /** Appends a row to the consent history (the newest row of a kind is the current state, extensions-v2 17.2). */
  async recordConsent(
    userId: string,
    kind: string,
    termsVersion: string,
    ipFingerprint: string | null,
    now: Date,
    tx?: Tx,
    granted = true,
  ): Promise<void> {
    const manager = db(this.users.manager.connection, tx);
    await manager.query(
      `INSERT INTO consents (user_id, kind, terms_version, ip_fingerprint, granted_at, granted)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [userId, kind, termsVersion, ipFingerprint, now, granted],
    );
  }
}
