import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

export class VapidKeyDto {
  @ApiProperty({ description: 'base64url of the uncompressed P-256 public key' }) public_key!: string;
}

export class PushKeysDto {
  @ApiProperty({ description: 'base64url of 65 bytes' })
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{87}=?$/, { message: 'must be the base64url of 65 bytes' })
  p256dh!: string;

  @ApiProperty({ description: 'base64url of 16 bytes' })
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{22}(==)?$/, { message: 'must be the base64url of 16 bytes' })
  auth!: string;
}

export class CreateSubscriptionDto {
  @ApiProperty({ maxLength: 2048, description: 'https URL of the push service' })
  @IsString()
  @Length(1, 2048)
  endpoint!: string;

  @ApiProperty({ type: PushKeysDto })
  @ValidateNested()
  @Type(() => PushKeysDto)
  keys!: PushKeysDto;

  @ApiProperty({ type: Number, nullable: true, description: 'ms since the epoch, or null' })
  @ValidateIf((o: CreateSubscriptionDto) => o.expiration_time !== null)
  @IsInt()
  @Min(0)
  expiration_time!: number | null;
}

export class SubscriptionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'https://fcm.googleapis.com' }) endpoint_origin!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_success_at!: string | null;
}

export class SubscriptionListDto {
  @ApiProperty({ type: [SubscriptionDto] }) items!: SubscriptionDto[];
}

export class CreateDeviceDto {
  @ApiProperty({ enum: ['ios', 'android'] })
  @IsIn(['ios', 'android'])
  platform!: 'ios' | 'android';

  @ApiProperty({ minLength: 1, maxLength: 4096 })
  @IsString()
  @Length(1, 4096)
  token!: string;

  @ApiPropertyOptional({ maxLength: 32 })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  app_version?: string;
}

export class DeviceDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['ios', 'android'] }) platform!: 'ios' | 'android';
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_success_at!: string | null;
  @ApiProperty({
    enum: ['enabled', 'disabled'],
    description: '`disabled`: the server has no FCM credentials, the device is stored and nothing is sent',
  })
  delivery!: 'enabled' | 'disabled';
}

export class DeviceListDto {
  @ApiProperty({ type: [DeviceDto] }) items!: DeviceDto[];
}

export class QueuedDto {
  @ApiProperty({ minimum: 0, description: 'Test pushes queued: one per subscription and device' }) queued!: number;
}
