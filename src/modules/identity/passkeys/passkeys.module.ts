import { Module } from '@nestjs/common';
import { AuthModule } from '@/modules/identity/auth/auth.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { PasskeyAuthController } from './passkey-auth.controller';
import { PasskeyCeremonies } from './passkey-ceremonies.service';
import { PasskeySignInService } from './passkey-sign-in.service';
import { PasskeysController } from './passkeys.controller';
import { PasskeysEnabledGuard } from './passkeys-enabled.guard';
import { PasskeysPersonalData } from './passkeys.personal-data';
import { PasskeysRepository } from './passkeys.repository';
import { PasskeysService } from './passkeys.service';
import { WebAuthnRelyingParty } from './relying-party';

/** Passkeys (WebAuthn, extensions-v3 3): registration and management, passwordless sign-in, second factor, step-up. */
@Module({
  imports: [UsersModule, AuthModule],
  controllers: [PasskeysController, PasskeyAuthController],
  providers: [
    PasskeysRepository,
    PasskeysService,
    PasskeyCeremonies,
    PasskeySignInService,
    PasskeysEnabledGuard,
    PasskeysPersonalData,
    WebAuthnRelyingParty,
  ],
})
export class PasskeysModule {}
