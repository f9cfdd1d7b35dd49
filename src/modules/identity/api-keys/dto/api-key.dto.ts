import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUUID, Length, Max, Min } from 'class-validator';

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 80, example: 'Nightly grade export' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 80)
  name!: string;

  @ApiProperty({ format: 'uuid', description: 'The one organization the token acts in' })
  @IsUUID()
  organization_id!: string;

  @ApiProperty({ enum: ['read', 'write'] })
  @IsIn(['read', 'write'])
  access!: 'read' | 'write';

  @ApiProperty({ minimum: 1, maximum: 90 })
  @IsInt()
  @Min(1)
  @Max(90)
  expires_in_days!: number;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uuid' }) organization_id!: string;
  @ApiProperty({ enum: ['read', 'write'] }) access!: string;
  @ApiProperty({ example: 'svc_live_Ab3x', description: 'The first characters, to recognise the token' })
  prefix!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) last_used_at!: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'The token itself: shown only in this response', example: 'svc_live_...' })
  token!: string;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto] }) items!: ApiKeyDto[];
}
