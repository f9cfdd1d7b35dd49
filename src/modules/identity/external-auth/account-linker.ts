import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { type User, UsersService } from '@/modules/identity/users';
import type { ExternalIdentity } from './claims';
import { ExternalIdentitiesRepository, type IdentityProvider } from './external-identities.repository';

/**
 * Finds the account of an external identity: the account it is linked to first (so a later email change at the
 * provider or here does not move it), then the account of its verified email (which gets linked), else a new
 * account. Concurrent first sign-ins end on one account: users and links are both inserted idempotently.
 */
@Injectable()
export class AccountLinker {
  constructor(
    private readonly users: UsersService,
    private readonly identities: ExternalIdentitiesRepository,
    private readonly clock: Clock,
  ) {}

  /** The account this identity would enter, without creating or linking anything. */
  async existing(identity: ExternalIdentity): Promise<User | null> {
    const linked = await this.identities.findUserId(identity.issuer, identity.subject);
    if (linked) {
      const user = await this.users.findById(linked);
      if (user) return user;
    }
    return this.users.findByEmail(identity.email);
  }

  async resolve(
    identity: ExternalIdentity,
    provider: IdentityProvider,
    connectionId: string | null,
  ): Promise<{ user: User; created: boolean }> {
    const link = { issuer: identity.issuer, subject: identity.subject, provider, connectionId };
    const now = this.clock.now();
    const linked = await this.identities.findUserId(identity.issuer, identity.subject);
    const linkedUser = linked ? await this.users.findById(linked) : null;
    if (linkedUser) {
      await this.identities.link({ ...link, userId: linkedUser.id }, now);
      return { user: linkedUser, created: false };
    }
    const { user, created } = await this.users.findOrCreate(identity.email, identity.locale);
    const owner = await this.identities.link({ ...link, userId: user.id }, now);
    if (owner !== user.id) {
      // Another request linked this identity to another account in the meantime: that link wins.
      return { user: await this.users.getById(owner), created: false };
    }
    return { user, created };
  }
}
