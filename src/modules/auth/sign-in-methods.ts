import { Injectable } from '@nestjs/common';

/** The sign-in methods on offer: the email code always, plus each external provider that is configured. */
@Injectable()
export class SignInMethods {
  private readonly providers: string[] = [];

  /** Called by the external-provider area for each provider whose credentials are configured. */
  addProvider(name: string): void {
    if (!this.providers.includes(name)) this.providers.push(name);
  }

  list(): string[] {
    return ['email_code', ...this.providers];
  }
}
