import type { Locale } from '@/core/mail/mail-template';
import { renderAnnouncementHtml } from './announcement-markdown';
import type { AnnouncementRow, Translations } from './announcements.repository';
import type { AnnouncementDto, CurrentAnnouncementDto } from './dto/announcement.dto';

/** The admin record (extensions-v2 18). */
export function toAdminRecord(row: AnnouncementRow): AnnouncementDto {
  return {
    id: row.id,
    scope: row.organization_id === null ? 'platform' : 'organization',
    organization_id: row.organization_id,
    translations: orderedTranslations(row.translations),
    severity: row.severity,
    audience: {
      roles: row.audience_roles,
      organization_ids: row.audience_organization_ids,
      cohort_ids: row.audience_cohort_ids,
    },
    starts_at: row.starts_at.toISOString(),
    ends_at: row.ends_at?.toISOString() ?? null,
    dismissible: row.dismissible,
    email: row.email,
    emailed_at: row.emailed_at?.toISOString() ?? null,
    created_by: { user_id: row.created_by },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function orderedTranslations(translations: Translations): Translations {
  const out: Translations = {};
  for (const locale of ['es', 'en'] as const) {
    const t = translations[locale];
    if (t) out[locale] = { title: t.title, body_md: t.body_md };
  }
  return out;
}

/** The translation in `locale`, else the other one (at least one exists by construction). */
export function pickTranslation(
  translations: Translations,
  locale: Locale,
): { locale: Locale; title: string; body_md: string } {
  const other: Locale = locale === 'es' ? 'en' : 'es';
  const chosen = translations[locale] ? locale : other;
  const t = translations[chosen]!;
  return { locale: chosen, title: t.title, body_md: t.body_md };
}

/** The reader record: the reader's language, else the other one, with the body rendered and sanitized. */
export function toReaderRecord(row: AnnouncementRow, locale: Locale): CurrentAnnouncementDto {
  const t = pickTranslation(row.translations, locale);
  return {
    id: row.id,
    scope: row.organization_id === null ? 'platform' : 'organization',
    organization_id: row.organization_id,
    title: t.title,
    body_md: t.body_md,
    body_html: renderAnnouncementHtml(t.body_md),
    locale: t.locale,
    severity: row.severity,
    starts_at: row.starts_at.toISOString(),
    ends_at: row.ends_at?.toISOString() ?? null,
    dismissible: row.dismissible,
  };
}
