import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { maskEmail } from '@/core/mail/addresses';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';
import { PrivacyExportsService } from './privacy-exports.service';
import { PrivacyRepository } from './privacy.repository';

/*
 * The privacy area's own tables (extensions-v2 17.4): data exports (files and rows deleted), erasure requests,
 * guardian consent requests and organizations' attestations.
 */

/** Data exports the person asked for: files, then rows, deleted on erasure. */
@Injectable()
@PersonalData({ area: 'account', key: 'data_exports', tables: ['privacy_exports'] })
export class DataExportsPersonalData implements PersonalDataHandler {
  constructor(private readonly exports: PrivacyExportsService) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, status, size_bytes, created_at, ready_at, expires_at FROM privacy_exports
       WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await this.exports.eraseAll(userId, tx);
  }
}

/**
 * Erasure requests. Cancelled ones go; the one being carried out stays as the record of the erasure (it refers to
 * the tombstone's id, a pseudonym, like the audit log, and its sealed former address is cleared when it completes).
 */
@Injectable()
@PersonalData({ area: 'account', key: 'erasure_requests', tables: ['account_erasures'] })
export class ErasureRequestsPersonalData implements PersonalDataHandler {
  constructor(private readonly repo: PrivacyRepository) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, status, keep_certificate_names, requested_at, scheduled_for, cancelled_at FROM account_erasures
       WHERE user_id = $1 ORDER BY requested_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await this.repo.deleteFinishedErasuresOf(userId, tx);
  }
}

/** Guardian consent requests of a minor: the guardian is someone else, so their address is masked; deleted on erasure. */
@Injectable()
@PersonalData({ area: 'consents', key: 'guardian_consent_requests', tables: ['guardian_consents'] })
export class GuardianConsentsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const rows = await db.query<Record<string, unknown>[]>(
      `SELECT id, guardian_email, status, requested_at, expires_at, decided_at, revoked_at FROM guardian_consents
       WHERE user_id = $1 ORDER BY requested_at, id`,
      [userId],
    );
    return rows.map(({ guardian_email, ...r }) => ({ ...r, guardian_email_masked: maskEmail(String(guardian_email)) }));
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM guardian_consents WHERE user_id = $1`, [userId]);
  }
}

/**
 * Organizations' attestations that they hold the person's guardian consent (deleted on erasure), and those the
 * person made as an owner/admin (they stay, without naming who attested).
 */
@Injectable()
@PersonalData({ area: 'consents', key: 'guardian_attestations', tables: ['guardian_attestations'] })
export class GuardianAttestationsPersonalData implements PersonalDataHandler {
  constructor(private readonly repo: PrivacyRepository) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const about = await db.query<Record<string, unknown>[]>(
      `SELECT organization_id, reason, attested_at FROM guardian_attestations WHERE user_id = $1 ORDER BY attested_at`,
      [userId],
    );
    const made = await db.query<Record<string, unknown>[]>(
      `SELECT organization_id, attested_at FROM guardian_attestations WHERE attested_by = $1 ORDER BY attested_at`,
      [userId],
    );
    return [...about.map((r) => ({ about: 'me', ...r })), ...made.map((r) => ({ about: 'a_member', ...r }))];
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await this.repo.eraseAttestations(userId, tx);
  }
}
