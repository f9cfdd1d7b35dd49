import { Injectable } from '@nestjs/common';
import { SignInProviders } from './sign-in-providers.port';

/** The sign-in methods on offer: the email code always, plus each external provider that is configured. */
@Injectable()
export class SignInMethods {
  constructor(private readonly providers: SignInProviders) {}

  list(): string[] {
    return ['email_code', ...this.providers.configured()];
  }
}
