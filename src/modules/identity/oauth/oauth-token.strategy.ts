import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { Credential } from '@/core/auth/credential';
import { STRATEGY } from '@/core/auth/strategies';
import { TokenService } from './token.service';

/** `Authorization: Bearer svc_oat_...`: an OAuth access token, acting in its one organization with its access. */
@Injectable()
export class OAuthTokenStrategy extends PassportStrategy(Strategy, STRATEGY.oauthToken) {
  constructor(private readonly tokens: TokenService) {
    super();
  }

  async validate(token: string): Promise<Credential | false> {
    return (await this.tokens.authenticate(token)) ?? false;
  }
}
