import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, Length } from 'class-validator';

/** The consent form (application/x-www-form-urlencoded), posted by the server-rendered consent page. */
export class AuthorizeDecisionDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  request_id!: string;

  @ApiProperty({ description: 'Bound to the session that saw the consent page' })
  @IsString()
  @Length(1, 200)
  csrf_token!: string;

  @ApiPropertyOptional({ format: 'uuid', description: "One of the person's organizations (required to approve)" })
  @IsOptional()
  @IsUUID()
  organization_id?: string;

  @ApiPropertyOptional({ enum: ['read', 'write'], default: 'read', description: 'Learners: read only' })
  @IsOptional()
  @IsIn(['read', 'write'])
  access?: 'read' | 'write';

  @ApiProperty({ enum: ['approve', 'deny'] })
  @IsIn(['approve', 'deny'])
  decision!: 'approve' | 'deny';
}

export class OAuthErrorDto {
  @ApiProperty({ example: 'invalid_grant' }) error!: string;
  @ApiProperty({ example: 'The code has expired.' }) error_description!: string;
}

export class ClientRegistrationRequestDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'string', format: 'uri', maxLength: 2000 },
    minItems: 1,
    maxItems: 10,
    example: ['http://127.0.0.1:33418/callback'],
    description: 'https, or http on loopback; no fragment',
  })
  redirect_uris!: string[];
  @ApiPropertyOptional({ maxLength: 200 }) client_name?: string;
  @ApiPropertyOptional({ enum: ['none'], default: 'none' }) token_endpoint_auth_method?: 'none';
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: ['authorization_code', 'refresh_token'] },
    maxItems: 10,
    example: ['authorization_code', 'refresh_token'],
  })
  grant_types?: string[];
  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: ['code'] }, maxItems: 10, example: ['code'] })
  response_types?: string[];
  @ApiPropertyOptional({ example: 'svc', maxLength: 200 }) scope?: string;
  @ApiPropertyOptional({ format: 'uri', maxLength: 2000 }) client_uri?: string;
  @ApiPropertyOptional({ format: 'uri', maxLength: 2000 }) logo_uri?: string;
  @ApiPropertyOptional({ maxLength: 200 }) software_id?: string;
  @ApiPropertyOptional({ maxLength: 200 }) software_version?: string;
}

export class ClientRegistrationDto {
  @ApiProperty() client_id!: string;
  @ApiProperty({ description: 'Seconds since the epoch' }) client_id_issued_at!: number;
  @ApiProperty({ type: [String] }) redirect_uris!: string[];
  @ApiPropertyOptional() client_name?: string;
  @ApiProperty({ type: [String] }) grant_types!: string[];
  @ApiProperty({ type: [String] }) response_types!: string[];
  @ApiProperty({ enum: ['none'] }) token_endpoint_auth_method!: 'none';
  @ApiProperty({ example: 'svc' }) scope!: string;
  @ApiPropertyOptional({ format: 'uri' }) client_uri?: string;
  @ApiPropertyOptional({ format: 'uri' }) logo_uri?: string;
  @ApiPropertyOptional() software_id?: string;
  @ApiPropertyOptional() software_version?: string;
}

export class TokenRequestDto {
  @ApiProperty({ enum: ['authorization_code', 'refresh_token'] }) grant_type!: string;
  @ApiProperty({ maxLength: 2048 }) client_id!: string;
  @ApiPropertyOptional({ maxLength: 2048, description: 'authorization_code' }) code?: string;
  @ApiPropertyOptional({ maxLength: 2048, description: 'authorization_code: as in the authorization request' })
  redirect_uri?: string;
  @ApiPropertyOptional({ maxLength: 2048, description: 'authorization_code: the PKCE verifier' })
  code_verifier?: string;
  @ApiPropertyOptional({ maxLength: 2048, description: 'refresh_token' }) refresh_token?: string;
  @ApiPropertyOptional({ maxLength: 2048, description: 'RFC 8707: the API identifier `{base_url}/api/v1`' })
  resource?: string;
  @ApiPropertyOptional({ maxLength: 2048, example: 'svc' }) scope?: string;
}

export class TokenResponseDto {
  @ApiProperty({ example: 'svc_oat_...' }) access_token!: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type!: 'Bearer';
  @ApiProperty({ example: 3600 }) expires_in!: number;
  @ApiPropertyOptional({
    example: 'svc_ort_...',
    description: 'When the client registered the refresh_token grant; rotates on every use',
  })
  refresh_token?: string;
  @ApiProperty({ example: 'svc' }) scope!: string;
}

export class RevocationRequestDto {
  @ApiProperty({ maxLength: 2048 }) token!: string;
  @ApiPropertyOptional({ enum: ['access_token', 'refresh_token'] }) token_type_hint?: string;
  @ApiPropertyOptional({ maxLength: 2048 }) client_id?: string;
}

export class AuthorizationServerMetadataDto {
  @ApiProperty({ format: 'uri' }) issuer!: string;
  @ApiProperty({ format: 'uri' }) authorization_endpoint!: string;
  @ApiProperty({ format: 'uri' }) token_endpoint!: string;
  @ApiProperty({ format: 'uri' }) registration_endpoint!: string;
  @ApiProperty({ format: 'uri' }) revocation_endpoint!: string;
  @ApiProperty({ type: [String] }) response_types_supported!: string[];
  @ApiProperty({ type: [String] }) grant_types_supported!: string[];
  @ApiProperty({ type: [String] }) code_challenge_methods_supported!: string[];
  @ApiProperty({ type: [String] }) token_endpoint_auth_methods_supported!: string[];
  @ApiProperty({ type: [String] }) scopes_supported!: string[];
  @ApiProperty() authorization_response_iss_parameter_supported!: boolean;
}

export class ProtectedResourceMetadataDto {
  @ApiProperty({ format: 'uri' }) resource!: string;
  @ApiProperty({ type: [String] }) authorization_servers!: string[];
  @ApiProperty({ type: [String] }) bearer_methods_supported!: string[];
  @ApiProperty({ type: [String] }) scopes_supported!: string[];
}
