import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCredential, MinorAccess, Public } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit, type RateLimitPolicy } from '@/core/rate-limit/rate-limit';
import { NoBodyDto } from '../dto/notification.dto';
import {
  CreateDeviceDto,
  CreateSubscriptionDto,
  DeviceDto,
  DeviceListDto,
  QueuedDto,
  SubscriptionDto,
  SubscriptionListDto,
  VapidKeyDto,
} from '../dto/push.dto';
import { PushService } from './push.service';

/** 13.5: a test push, 5 per hour per account. */
export const PUSH_TEST_ACCOUNT: RateLimitPolicy = {
  name: 'push.test.account',
  points: 5,
  durationSeconds: 3600,
  key: 'account',
};

const PERSONAL =
  'Subscriptions and devices belong to the person, not to an organization: any credential sees them all.';

@ApiTags('notifications')
@Controller('push')
export class PushController {
  constructor(private readonly push: PushService) {}

  @Get('vapid-key')
  @Public()
  @ApiOperation({
    summary: 'The VAPID public key',
    description:
      'base64url of the uncompressed P-256 key, for `pushManager.subscribe`. 404 `push_disabled` without keys.',
  })
  @ApiOkResponse({ type: VapidKeyDto })
  @ApiErrors([404, 'push_disabled'], 500)
  vapidKey(): VapidKeyDto {
    return this.push.vapidKey();
  }

  @Post('subscriptions')
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Register a web push subscription',
    description:
      '201 for a new endpoint; 200 when the endpoint is already registered (it moves to the caller if another ' +
      'account had it). The endpoint must be an https URL resolving to public addresses (outside production also ' +
      'http on loopback); else 422. At most 20 per person: the oldest is dropped. 404 `push_disabled` without keys.',
  })
  @ApiCreatedResponse({ type: SubscriptionDto })
  @ApiOkResponse({ type: SubscriptionDto, description: 'Already registered' })
  @ApiErrors([404, 'push_disabled'], 422)
  async subscribe(
    @CurrentCredential() credential: Credential,
    @Body() dto: CreateSubscriptionDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SubscriptionDto> {
    const { dto: out, created } = await this.push.subscribe(credential.userId, dto);
    res.status(created ? 201 : 200);
    return out;
  }

  @Get('subscriptions')
  @ApiOperation({ summary: 'My web push subscriptions', description: PERSONAL })
  @ApiOkResponse({ type: SubscriptionListDto })
  subscriptions(@CurrentCredential() credential: Credential): Promise<SubscriptionListDto> {
    return this.push.subscriptions(credential.userId);
  }

  @Delete('subscriptions/:subscription_id')
  @HttpCode(204)
  @MinorAccess('always')
  @ApiOperation({ summary: 'Remove a web push subscription', description: 'Another person’s is 404.' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(404)
  async unsubscribe(@CurrentCredential() credential: Credential, @Param('subscription_id') id: string): Promise<void> {
    await this.push.unsubscribe(credential.userId, id);
  }

  @Post('test')
  @HttpCode(202)
  @MinorAccess('always')
  @RateLimit(PUSH_TEST_ACCOUNT)
  @ApiOperation({
    summary: 'Send me a test push',
    description:
      'One test push per web push subscription and (with FCM configured) per device, now. 404 `push_disabled` ' +
      'without VAPID keys.',
  })
  @ApiAcceptedResponse({ type: QueuedDto })
  @ApiErrors([404, 'push_disabled'], 429)
  test(@CurrentCredential() credential: Credential, @Body() _body: NoBodyDto): Promise<QueuedDto> {
    return this.push.test(credential);
  }

  @Post('devices')
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Register a native device',
    description:
      'An FCM registration token of an iOS or Android app. 201 new; 200 for a token already registered (it moves ' +
      'to the caller). At most 20 per person: the oldest is dropped. `delivery: disabled` says the server has no ' +
      'FCM credentials: the device is stored and nothing is sent.',
  })
  @ApiCreatedResponse({ type: DeviceDto })
  @ApiOkResponse({ type: DeviceDto, description: 'Already registered' })
  @ApiErrors(422)
  async registerDevice(
    @CurrentCredential() credential: Credential,
    @Body() dto: CreateDeviceDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<DeviceDto> {
    const { dto: out, created } = await this.push.registerDevice(credential.userId, dto);
    res.status(created ? 201 : 200);
    return out;
  }

  @Get('devices')
  @ApiOperation({ summary: 'My native devices', description: PERSONAL })
  @ApiOkResponse({ type: DeviceListDto })
  devices(@CurrentCredential() credential: Credential): Promise<DeviceListDto> {
    return this.push.devices(credential.userId);
  }

  @Delete('devices/:device_id')
  @HttpCode(204)
  @MinorAccess('always')
  @ApiOperation({ summary: 'Remove a native device', description: 'Another person’s is 404.' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(404)
  async removeDevice(@CurrentCredential() credential: Credential, @Param('device_id') id: string): Promise<void> {
    await this.push.removeDevice(credential.userId, id);
  }
}
