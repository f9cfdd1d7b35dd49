import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { Credential } from '@/core/auth/credential';
import { STRATEGY } from '@/core/auth/strategies';
import { ApiKeysService } from './api-keys.service';

/** `Authorization: Bearer svc_live_...` (the credential guard never takes tokens from the query or body). */
@Injectable()
export class PersonalTokenStrategy extends PassportStrategy(Strategy, STRATEGY.personalToken) {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }

  async validate(token: string): Promise<Credential | false> {
    return (await this.keys.authenticate(token)) ?? false;
  }
}
