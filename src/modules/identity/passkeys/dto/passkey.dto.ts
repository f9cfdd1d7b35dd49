import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsDefined, IsOptional, IsString, IsUUID, Length, ValidateNested } from 'class-validator';
import {
  AuthenticationResponseJsonDto,
  PublicKeyCredentialRequestOptionsJsonDto,
  RegistrationResponseJsonDto,
} from './webauthn.dto';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

/** A passkey as its owner sees it (never its public key or credential id). */
export class PasskeyDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'Laptop' })
  name!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  last_used_at!: string | null;

  @ApiProperty({ enum: ['single_device', 'multi_device'] })
  device_type!: 'single_device' | 'multi_device';

  @ApiProperty({ description: 'Synced to a backup (multi-device passkeys)' })
  backed_up!: boolean;

  @ApiProperty({ type: [String], example: ['internal', 'hybrid'] })
  transports!: string[];

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'Set when the passkey was disabled because its counter went back (a cloned authenticator)',
  })
  disabled_at!: string | null;
}

export class PasskeyListDto {
  @ApiProperty({ type: [PasskeyDto] })
  items!: PasskeyDto[];
}

export class RegisterPasskeyDto {
  @ApiProperty({ type: RegistrationResponseJsonDto })
  @IsDefined()
  @ValidateNested()
  @Type(() => RegistrationResponseJsonDto)
  response!: RegistrationResponseJsonDto;

  @ApiPropertyOptional({ minLength: 1, maxLength: 60, example: 'Laptop', description: 'Default "Passkey <n>"' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 60)
  name?: string;
}

export class RenamePasskeyDto {
  @ApiProperty({ minLength: 1, maxLength: 60, example: 'Phone' })
  @Transform(trim)
  @IsString()
  @Length(1, 60)
  name!: string;
}

export class PasskeySignInOptionsDto {
  @ApiProperty({ format: 'uuid', description: 'Send it back with the answer' })
  challenge_id!: string;

  @ApiProperty({ type: PublicKeyCredentialRequestOptionsJsonDto })
  options!: PublicKeyCredentialRequestOptionsJsonDto;
}

export class PasskeySignInDto {
  @ApiProperty({ format: 'uuid', maxLength: 36 })
  @IsUUID()
  challenge_id!: string;

  @ApiProperty({ type: AuthenticationResponseJsonDto })
  @IsDefined()
  @ValidateNested()
  @Type(() => AuthenticationResponseJsonDto)
  response!: AuthenticationResponseJsonDto;
}

/** A passkey answer to a challenge bound to this session (step-up) or to the pending two-factor sign-in. */
export class PasskeyAssertionDto {
  @ApiProperty({ type: AuthenticationResponseJsonDto })
  @IsDefined()
  @ValidateNested()
  @Type(() => AuthenticationResponseJsonDto)
  response!: AuthenticationResponseJsonDto;
}

export class StepUpConfirmedDto {
  @ApiProperty({ enum: ['confirmed'], description: 'The `svc_step_up` cookie is set' })
  status!: 'confirmed';
}
