import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { validateRegistration } from './client-registration';
import { OAuthRepository } from './oauth.repository';

/** RFC 7591 section 3.2.1: the client id and the metadata the client registered. */
export type ClientRegistration = { client_id: string; client_id_issued_at: number } & Record<string, unknown>;

/** Dynamic client registration (RFC 7591): public clients only; refusals are `OAuthError`s. */
@Injectable()
export class ClientRegistrationService {
  constructor(
    private readonly repo: OAuthRepository,
    private readonly clock: Clock,
  ) {}

  async register(body: unknown): Promise<ClientRegistration> {
    const metadata = validateRegistration(body);
    const client = await this.repo.insertClient(metadata, this.clock.now());
    // The registered metadata, with the fields the client did not set left out (not null).
    const registered = Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== null));
    return {
      client_id: client.id,
      client_id_issued_at: Math.floor(client.created_at.getTime() / 1000),
      ...registered,
    };
  }
}
