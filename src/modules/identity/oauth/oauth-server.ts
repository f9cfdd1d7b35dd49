import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { SCOPE } from './client-registration';

export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
export const CODE_TTL_SECONDS = 60;
export const AUTHORIZATION_REQUEST_TTL_SECONDS = 10 * 60;

/** The addresses and identifiers of the authorization server and of the API it protects. */
@Injectable()
export class OAuthServer {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** RFC 8414 issuer: the web application (it serves these documents too). */
  get issuer(): string {
    return this.config.appUrl;
  }

  /** RFC 8707 / RFC 9728 identifier of the protected API: the only `resource` tokens are issued for. */
  get resource(): string {
    return `${this.config.baseUrl}/api/v1`;
  }

  get resourceMetadataUrl(): string {
    return `${this.config.baseUrl}/.well-known/oauth-protected-resource`;
  }

  endpoint(name: 'authorize' | 'authorize/decision' | 'token' | 'register' | 'revoke'): string {
    return `${this.config.baseUrl}/api/v1/oauth/${name}`;
  }

  loginUrl(next: string): string {
    return `${this.config.webUrl}/login?next=${encodeURIComponent(next)}`;
  }

  authorizationServerMetadata(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      authorization_endpoint: this.endpoint('authorize'),
      token_endpoint: this.endpoint('token'),
      registration_endpoint: this.endpoint('register'),
      revocation_endpoint: this.endpoint('revoke'),
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [SCOPE],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${this.config.baseUrl}/docs`,
    };
  }

  protectedResourceMetadata(): Record<string, unknown> {
    return {
      resource: this.resource,
      authorization_servers: [this.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: [SCOPE],
      resource_name: 'Learning Platform API',
      resource_documentation: `${this.config.baseUrl}/docs`,
    };
  }
}
