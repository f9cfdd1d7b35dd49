import { Injectable } from '@nestjs/common';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { MailService } from '@/core/mail/mail.service';
import { UsersService } from '@/modules/identity/users';
import type { PasskeyDto } from './dto/passkey.dto';
import { PasskeyCeremonies } from './passkey-ceremonies.service';
import { PASSKEY_ADDED, PASSKEY_REMOVED } from './passkeys.mails';
import { type PasskeyRow, PasskeysRepository } from './passkeys.repository';
import { WebAuthnRelyingParty } from './relying-party';

export const PASSKEY_LIMIT = 10;
const VERIFICATION_FAILED = 'The passkey could not be verified (origin, RP ID, challenge or format).';

export function toPasskeyDto(row: PasskeyRow): PasskeyDto {
  return {
    id: row.id,
    name: row.name,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    device_type: row.device_type,
    backed_up: row.backed_up,
    transports: row.transports,
    disabled_at: row.disabled_at?.toISOString() ?? null,
  };
}

/**
 * A person's passkeys: registration (a challenge bound to the session, verified by the relying party), the list,
 * renaming and removal. At most 10 a person; adding and removing are audited and emailed as security notices.
 */
@Injectable()
export class PasskeysService {
  constructor(
    private readonly repository: PasskeysRepository,
    private readonly ceremonies: PasskeyCeremonies,
    private readonly rp: WebAuthnRelyingParty,
    private readonly users: UsersService,
    private readonly audit: AuditService,
    private readonly mail: MailService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  async list(userId: string): Promise<PasskeyDto[]> {
    return (await this.repository.listOf(userId)).map(toPasskeyDto);
  }

  async registrationOptions(credential: Credential): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const user = await this.users.getById(credential.userId);
    const existing = await this.repository.listOf(user.id);
    if (existing.length >= PASSKEY_LIMIT) throw this.limitReached();
    const { challenge } = await this.ceremonies.issueChallenge('registration', {
      userId: user.id,
      binding: credential.sessionId,
    });
    return this.rp.registrationOptions(user, existing, challenge);
  }

  async register(
    credential: Credential,
    response: RegistrationResponseJSON,
    name: string | undefined,
    ip: string | undefined,
  ): Promise<PasskeyDto> {
    const user = await this.users.getById(credential.userId);
    // A credential already registered is told as such, whatever the rest of the answer (a re-sent answer included).
    if (await this.repository.findByCredentialId(response.id)) throw this.exists();
    const challenge = await this.ceremonies.takeAnswered(response, 'registration', {
      userId: user.id,
      binding: credential.sessionId,
    });
    if (!challenge) throw ApiError.unprocessable('passkey_verification_failed', VERIFICATION_FAILED, 'response');
    const verified = await this.rp.verifyRegistration(response, challenge.challenge);
    if (!verified) throw ApiError.unprocessable('passkey_verification_failed', VERIFICATION_FAILED, 'response');

    const row = await this.transactions.run(async (tx) => {
      await this.repository.lockUser(user.id, tx);
      const existing = await this.repository.listOf(user.id, tx);
      if (existing.length >= PASSKEY_LIMIT) throw this.limitReached();
      const inserted = await this.repository.insert(
        {
          userId: user.id,
          credentialId: verified.credentialId,
          publicKey: verified.publicKey,
          counter: verified.counter,
          name: name ?? `Passkey ${existing.length + 1}`,
          deviceType: verified.deviceType,
          backedUp: verified.backedUp,
          transports: verified.transports,
          aaguid: verified.aaguid,
          now: this.clock.now(),
        },
        tx,
      );
      if (!inserted) throw this.exists();
      await this.audit.record(
        {
          action: 'passkey.registered',
          actorId: user.id,
          organizationId: null,
          targetType: 'passkey',
          targetId: inserted.id,
          ip,
          metadata: { device_type: inserted.device_type, backed_up: inserted.backed_up },
        },
        tx,
      );
      await this.mail.send(
        PASSKEY_ADDED,
        { passkeyName: inserted.name },
        { to: user.email, locale: this.users.emailLocale(user), organizationId: null, tx },
      );
      return inserted;
    });
    return toPasskeyDto(row);
  }

  async rename(userId: string, id: string, name: string): Promise<PasskeyDto> {
    const row = await this.repository.rename(id, userId, name);
    if (!row) throw ApiError.notFound('No such passkey.');
    return toPasskeyDto(row);
  }

  async remove(userId: string, id: string, ip: string | undefined): Promise<void> {
    const user = await this.users.getById(userId);
    await this.transactions.run(async (tx) => {
      const row = await this.repository.delete(id, userId, tx);
      if (!row) throw ApiError.notFound('No such passkey.');
      await this.audit.record(
        {
          action: 'passkey.deleted',
          actorId: userId,
          organizationId: null,
          targetType: 'passkey',
          targetId: row.id,
          ip,
        },
        tx,
      );
      await this.mail.send(
        PASSKEY_REMOVED,
        { passkeyName: row.name },
        { to: user.email, locale: this.users.emailLocale(user), organizationId: null, tx },
      );
    });
  }

  private limitReached(): ApiError {
    return ApiError.conflict('passkey_limit_reached', `A person can have at most ${PASSKEY_LIMIT} passkeys.`);
  }

  private exists(): ApiError {
    return ApiError.conflict('passkey_exists', 'This passkey is already registered.');
  }
}
