import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { StepUp } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  CreateEndpointDto,
  DeliveryDto,
  DeliveryQueryDto,
  EndpointDto,
  EndpointListDto,
  EndpointWithSecretDto,
  TestEventDto,
  UpdateEndpointDto,
} from './dto/webhook.dto';
import { TEST_ACCOUNT } from './webhooks.limits';
import { WebhooksService } from './webhooks.service';

const URL_RULE =
  'The URL must be `https` (max 2048) and resolve only to public addresses (private, loopback, link-local and ' +
  'reserved ranges are refused with 422; outside production loopback is accepted, over `http` too). It is ' +
  'checked again before every delivery.';
const SIGNING =
  'Deliveries are `POST`s signed with Standard Webhooks: `webhook-id` (the event id), `webhook-timestamp`, ' +
  '`webhook-signature: v1,<base64 HMAC-SHA256>`.';

@ApiTags('integrations')
@Controller('organizations/:org_id/webhook-endpoints')
@OrgScoped()
@Roles('owner', 'admin')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiOperation({
    summary: 'Webhook endpoints',
    description: 'At most 10, oldest first. Secrets are never shown here.',
  })
  @ApiOkResponse({ type: EndpointListDto })
  list(@CurrentMembership() member: Membership): Promise<EndpointListDto> {
    return this.webhooks.list(member);
  }

  @Post()
  @StepUp()
  @ApiOperation({
    summary: 'Subscribe an endpoint to events',
    description: `${URL_RULE} ${SIGNING} The answer holds the secret (\`whsec_...\`), shown only now. At most 10 endpoints (409 \`endpoint_limit_reached\`). Audited (\`webhook_endpoint.created\`).`,
  })
  @ApiCreatedResponse({ type: EndpointWithSecretDto })
  @ApiErrors(409, 422)
  create(
    @CurrentMembership() member: Membership,
    @Body() dto: CreateEndpointDto,
    @Req() req: Request,
  ): Promise<EndpointWithSecretDto> {
    return this.webhooks.create(member, dto, req.ip);
  }

  @Get(':endpoint_id')
  @ApiOperation({ summary: 'A webhook endpoint' })
  @ApiOkResponse({ type: EndpointDto })
  @ApiErrors(404)
  get(@CurrentMembership() member: Membership, @Param('endpoint_id') endpointId: string): Promise<EndpointDto> {
    return this.webhooks.get(member, endpointId);
  }

  @Patch(':endpoint_id')
  @StepUp()
  @ApiOperation({
    summary: 'Change an endpoint',
    description: `Only the fields sent change (\`description: null\` clears it). Enabling clears \`disabled_reason\`. ${URL_RULE} Audited (\`webhook_endpoint.updated\`).`,
  })
  @ApiOkResponse({ type: EndpointDto })
  @ApiErrors(404, 422)
  update(
    @CurrentMembership() member: Membership,
    @Param('endpoint_id') endpointId: string,
    @Body() dto: UpdateEndpointDto,
    @Req() req: Request,
  ): Promise<EndpointDto> {
    return this.webhooks.update(member, endpointId, dto, req.ip);
  }

  @Delete(':endpoint_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an endpoint',
    description: 'Its pending deliveries are dropped. Audited (`webhook_endpoint.deleted`).',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404)
  async remove(
    @CurrentMembership() member: Membership,
    @Param('endpoint_id') endpointId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.webhooks.remove(member, endpointId, req.ip);
  }

  @Post(':endpoint_id/rotate-secret')
  @HttpCode(200)
  @StepUp()
  @ApiOperation({
    summary: 'Rotate the signing secret',
    description:
      'A new secret, shown only in this answer. For 24 hours deliveries carry two signatures, with the new and ' +
      'the old secret (space-separated), so receivers can switch without losing a message. Audited ' +
      '(`webhook_endpoint.secret_rotated`).',
  })
  @ApiOkResponse({ type: EndpointWithSecretDto })
  @ApiErrors(404)
  rotate(
    @CurrentMembership() member: Membership,
    @Param('endpoint_id') endpointId: string,
    @Req() req: Request,
  ): Promise<EndpointWithSecretDto> {
    return this.webhooks.rotateSecret(member, endpointId, req.ip);
  }

  @Post(':endpoint_id/test')
  @HttpCode(202)
  @RateLimit(TEST_ACCOUNT)
  @ApiOperation({
    summary: 'Send a test event',
    description: 'A `webhook.test` delivery with `data: {}`, made like any other. 409 `endpoint_disabled`.',
  })
  @ApiAcceptedResponse({ type: TestEventDto })
  @ApiErrors(404, 409)
  test(@CurrentMembership() member: Membership, @Param('endpoint_id') endpointId: string): Promise<TestEventDto> {
    return this.webhooks.test(member, endpointId);
  }

  @Get(':endpoint_id/deliveries')
  @ApiOperation({
    summary: 'The delivery log of an endpoint',
    description: 'Most recent first; kept 30 days. Filters: `status`, `event_type`.',
  })
  @ApiPageResponse(DeliveryDto)
  @ApiErrors(404, 422)
  deliveries(
    @CurrentMembership() member: Membership,
    @Param('endpoint_id') endpointId: string,
    @Query() query: DeliveryQueryDto,
  ): Promise<Page<DeliveryDto>> {
    return this.webhooks.deliveries(member, endpointId, query);
  }

  @Post(':endpoint_id/deliveries/:delivery_id/redeliver')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Deliver an event again',
    description:
      'A new delivery of the same event (same `webhook-id`, new delivery id) with a new cycle of attempts. 409 ' +
      '`endpoint_disabled`.',
  })
  @ApiAcceptedResponse({ type: DeliveryDto })
  @ApiErrors(404, 409)
  redeliver(
    @CurrentMembership() member: Membership,
    @Param('endpoint_id') endpointId: string,
    @Param('delivery_id') deliveryId: string,
  ): Promise<DeliveryDto> {
    return this.webhooks.redeliver(member, endpointId, deliveryId);
  }
}
