import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * Issued certificates (`certificates.json`). On erasure they stay, the issuing organization's record of issuance
 * (they keep verifying), and lose the holder's name unless the person chose to keep it (extensions-v2 17.3, 17.4).
 * Like a repository, this handler only talks to the database.
 */
@Injectable()
@PersonalData({ area: 'certificates', key: 'issued', tables: ['issued_certificates'] })
export class IssuedCertificatesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, code, type, status, organization_id, holder_name, course_id, path_id, cohort_id, title, grade,
              issued_at, revoked_at, revoke_reason, reissue_reason
       FROM issued_certificates WHERE user_id = $1 ORDER BY issued_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx, keepCertificateNames }: EraseContext): Promise<void> {
    if (keepCertificateNames) return;
    await tx.manager.query(
      `UPDATE issued_certificates SET holder_name = NULL WHERE user_id = $1 AND holder_name IS NOT NULL`,
      [userId],
    );
  }
}

/**
 * Platform settings the person saved as a platform admin (the default certificate template, 16.2): which and
 * when (`certificates.json`). On erasure the setting stays (it is the platform's) and loses its author.
 */
@Injectable()
@PersonalData({ area: 'certificates', key: 'platform_settings_saved', tables: ['platform_settings'] })
export class PlatformSettingsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(`SELECT key, updated_at FROM platform_settings WHERE updated_by = $1 ORDER BY key`, [userId]);
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE platform_settings SET updated_by = NULL WHERE updated_by = $1`, [userId]);
  }
}
