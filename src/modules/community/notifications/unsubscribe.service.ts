import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import type { Locale } from '@/core/mail/mail-template';
import {
  UNSUBSCRIBE_PATH,
  type UnsubscribeType,
  unsubscribeToken,
  verifyUnsubscribeToken,
} from '@/core/mail/unsubscribe-token';
import { UsersService } from '@/modules/identity/users';
import { CATEGORY_LABELS } from './notification-content';
import { EMAIL_CATEGORIES, type PreferenceOverrides } from './notification-categories';
import { NotificationsRepository } from './notifications.repository';

/** The consent a `type=all` unsubscribe withdraws (extensions-v2 17.2). */
export const PRODUCT_UPDATES_CONSENT = 'product_updates_email';

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Language of a page whose token does not verify: the browser's first of es/en, else es. */
export function browserLocale(acceptLanguage: string | undefined): Locale {
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0].trim().toLowerCase();
    if (tag === 'es' || tag.startsWith('es-')) return 'es';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return 'es';
}

const TEXT = {
  es: {
    title: 'Darse de baja',
    ask: (label: string) => `¿Quieres dejar de recibir correos de ${label}?`,
    confirm: 'Darme de baja',
    askAll: 'O deja de recibir todos los correos de notificaciones y novedades:',
    confirmAll: 'Darme de baja de todo',
    done: (label: string) => `Ya no recibirás correos de ${label}.`,
    settings: 'Gestionar todas las notificaciones',
  },
  en: {
    title: 'Unsubscribe',
    ask: (label: string) => `Do you want to stop receiving emails about ${label}?`,
    confirm: 'Unsubscribe',
    askAll: 'Or stop every notification and product news email:',
    confirmAll: 'Unsubscribe from everything',
    done: (label: string) => `You will no longer receive emails about ${label}.`,
    settings: 'Manage all notifications',
  },
} as const;

/**
 * The one-click unsubscribe of extensions-v2 13.6: GET shows a confirmation page and changes nothing (link
 * scanners open links); POST with a verifying token turns the category's email off (all five, and withdraws the
 * product-news consent, for `type=all`). A token that does not verify gets the same pages and changes nothing.
 */
@Injectable()
export class UnsubscribeService {
  private readonly logger = new Logger('Unsubscribe');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly crypto: CryptoService,
    private readonly repository: NotificationsRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly users: UsersService,
  ) {}

  async confirmationPage(token: string, type: UnsubscribeType, acceptLanguage: string | undefined): Promise<string> {
    const userId = verifyUnsubscribeToken(this.crypto, token, type);
    const locale = await this.localeOf(userId, acceptLanguage);
    const t = TEXT[locale];
    const allToken = userId ? unsubscribeToken(this.crypto, userId, 'all') : token;
    const form = (tk: string, ty: UnsubscribeType, label: string): string =>
      `<form method="post" action="${escapeHtml(`${UNSUBSCRIBE_PATH}?token=${tk}&type=${ty}`)}">` +
      `<input type="hidden" name="List-Unsubscribe" value="One-Click">` +
      `<button type="submit">${escapeHtml(label)}</button></form>`;
    const body = [
      `<p>${escapeHtml(t.ask(CATEGORY_LABELS[locale][type]))}</p>`,
      form(token, type, t.confirm),
      ...(type === 'all' ? [] : [`<p>${escapeHtml(t.askAll)}</p>`, form(allToken, 'all', t.confirmAll)]),
    ];
    return this.page(locale, t.title, body);
  }

  async unsubscribe(token: string, type: UnsubscribeType, acceptLanguage: string | undefined): Promise<string> {
    const userId = verifyUnsubscribeToken(this.crypto, token, type);
    if (userId) await this.apply(userId, type);
    const locale = await this.localeOf(userId, acceptLanguage);
    const t = TEXT[locale];
    return this.page(locale, t.title, [`<p>${escapeHtml(t.done(CATEGORY_LABELS[locale][type]))}</p>`]);
  }

  private async apply(userId: string, type: UnsubscribeType): Promise<void> {
    const [person] = await this.repository.recipients([userId]);
    if (!person) return; // a deleted account: nothing to change
    await this.transactions.run(async (tx) => {
      const now = this.clock.now();
      const current = await this.repository.lockPreferences(userId, now, tx);
      const categories: PreferenceOverrides = { ...current.categories };
      for (const c of type === 'all' ? EMAIL_CATEGORIES : [type]) categories[c] = { ...categories[c], email: false };
      await this.repository.savePreferences(userId, { ...current, categories }, now, tx);
      if (type === 'all') await this.users.withdrawConsent(userId, PRODUCT_UPDATES_CONSENT, now, tx);
    });
    this.logger.log({ user_id: userId, type }, 'Unsubscribed by one click');
  }

  private async localeOf(userId: string | null, acceptLanguage: string | undefined): Promise<Locale> {
    if (userId) {
      const [person] = await this.repository.recipients([userId]);
      if (person) return person.locale;
    }
    return browserLocale(acceptLanguage);
  }

  private page(locale: Locale, title: string, body: string[]): string {
    const settings = `${this.config.webUrl.replace(/\/+$/, '')}/settings/notifications`;
    return `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:Arial,Helvetica,sans-serif;max-width:480px;margin:48px auto;padding:0 16px;color:#1f2933}button{padding:10px 16px;margin:8px 0}</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body.join('\n')}
<p><a href="${escapeHtml(settings)}">${escapeHtml(TEXT[locale].settings)}</a></p>
</body></html>`;
  }
}
