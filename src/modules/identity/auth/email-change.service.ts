import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import type { CookieChange } from '@/core/http/cookies';
import { maskEmail } from '@/core/mail/addresses';
import { MailService } from '@/core/mail/mail.service';
import { type User, normalizeEmail, UsersService } from '@/modules/identity/users';
import { EMAIL_CHANGE_CODE, EMAIL_CHANGED_NOTICE } from './auth.mails';
import { EmailCodeService } from './email-code.service';
import { SessionService } from './session.service';

/**
 * Changing the sign-in address: a code goes to the NEW address (nothing is sent, and nothing said, when it
 * belongs to another account); confirming it switches the address, ends every other session, renews this
 * session's cookies and tells the old address.
 */
@Injectable()
export class EmailChangeService {
  constructor(
    private readonly users: UsersService,
    private readonly codes: EmailCodeService,
    private readonly sessions: SessionService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
  ) {}

  async request(credential: Credential, email: string): Promise<void> {
    const user = await this.users.getById(credential.userId);
    const target = normalizeEmail(email);
    if (target === user.email) throw ApiError.unprocessable('same_email', 'That is already your address.', 'email');
    if (await this.users.findByEmail(target)) return; // taken: answer exactly as if sent
    const { code } = await this.codes.issue('email_change', user.id, { email: target });
    await this.mail.send(
      EMAIL_CHANGE_CODE,
      { code },
      { to: target, locale: this.users.emailLocale(user), organizationId: null },
    );
  }

  async verify(
    credential: Credential,
    code: string,
    ip: string | undefined,
  ): Promise<{ user: User; cookies: readonly CookieChange[] }> {
    const before = await this.users.getById(credential.userId);
    // An email-change code always carries the new address (`request` stores it).
    const target = (await this.codes.verify('email_change', before.id, code, before.email)).email;
    await this.transactions.run(async (tx) => {
      const holder = await this.users.findByEmail(target, tx);
      if (holder && holder.id !== before.id)
        throw ApiError.conflict('email_taken', 'That address now belongs to another account.');
      await this.users.changeEmail(before.id, target, tx);
      await this.users.raiseTokenVersion(before.id, tx);
      await this.sessions.revokeOthers(before.id, credential.sessionId, 'email_changed', tx);
      await this.audit.record(
        {
          action: 'user.email_changed',
          actorId: before.id,
          organizationId: null,
          targetType: 'user',
          targetId: before.id,
          ip,
        },
        tx,
      );
      await this.mail.send(
        EMAIL_CHANGED_NOTICE,
        { newEmailMasked: maskEmail(target) },
        { to: before.email, locale: this.users.emailLocale(before), organizationId: null, tx },
      );
    });
    const after = await this.users.getById(before.id);
    return { user: after, cookies: await this.sessions.renew(after, credential.sessionId!) };
  }
}
