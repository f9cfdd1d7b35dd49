import { type CanActivate, Injectable } from '@nestjs/common';
import { ApiError } from '@/core/http/api-error';
import { WebAuthnRelyingParty } from './relying-party';

/** `PASSKEYS_ENABLED=false`: every passkey route answers 404 `feature_disabled` (after the credential checks). */
@Injectable()
export class PasskeysEnabledGuard implements CanActivate {
  constructor(private readonly rp: WebAuthnRelyingParty) {}

  canActivate(): boolean {
    if (!this.rp.enabled) throw ApiError.notFound('Passkeys are switched off on this deployment.', 'feature_disabled');
    return true;
  }
}
