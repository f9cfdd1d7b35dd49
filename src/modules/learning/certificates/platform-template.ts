import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { type CertificateTemplate, DEFAULT_TEMPLATE } from './certificate-template';

/** The `platform_settings` key of the template (read with the certificate by public verification). */
export const PLATFORM_TEMPLATE_KEY = 'certificate_template';
const KEY = PLATFORM_TEMPLATE_KEY;
const FIELDS = ['issuer_name', 'signature_name', 'signature_title', 'logo_url', 'footer_text', 'accent_color'] as const;

export interface StoredTemplate {
  template: CertificateTemplate;
  /** Null while the platform default was never saved (the built constant). */
  updated_at: string | null;
}

/**
 * The platform's default certificate template, stored in `platform_settings` (16.2); until a platform admin saves
 * one it is the built constant. Read on every use (one primary-key row): every instance sees a change at once.
 */
/** The template a stored `platform_settings` value stands for (null: never saved, the built constant). */
export function storedTemplate(value: Partial<CertificateTemplate> | null): CertificateTemplate {
  if (value === null) return { ...DEFAULT_TEMPLATE };
  return Object.fromEntries(FIELDS.map((f) => [f, value[f] ?? null])) as unknown as CertificateTemplate;
}

@Injectable()
export class PlatformTemplateStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<StoredTemplate> {
    const rows = await this.dataSource.query<{ value: Partial<CertificateTemplate>; updated_at: Date }[]>(
      `SELECT value, updated_at FROM platform_settings WHERE key = $1`,
      [KEY],
    );
    if (rows.length === 0) return { template: { ...DEFAULT_TEMPLATE }, updated_at: null };
    return { template: storedTemplate(rows[0].value), updated_at: rows[0].updated_at.toISOString() };
  }

  async template(): Promise<CertificateTemplate> {
    return (await this.get()).template;
  }

  /** Replaces the template (every field; absent ones become null). Audited `certificate_template.updated`. */
  async put(values: Partial<CertificateTemplate>, actorId: string, ip?: string): Promise<StoredTemplate> {
    const template = Object.fromEntries(FIELDS.map((f) => [f, values[f] ?? null])) as unknown as CertificateTemplate;
    const now = this.clock.now();
    await this.transactions.run(async (tx) => {
      await tx.manager.query(
        `INSERT INTO platform_settings (key, value, updated_by, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_by = EXCLUDED.updated_by,
           updated_at = EXCLUDED.updated_at`,
        [KEY, JSON.stringify(template), actorId, now],
      );
      await this.audit.record(
        {
          action: 'certificate_template.updated',
          actorId,
          organizationId: null,
          targetType: 'certificate_template',
          targetId: null,
          ip,
          metadata: { fields: FIELDS.filter((f) => template[f] !== null) },
        },
        tx,
      );
    });
    return this.get();
  }
}
