import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { BrowserSessionOnly, CurrentCredential, NotWhileImpersonating, StepUp } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { UuidPipe } from '@/core/http/uuid';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyListDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

@ApiTags('api-keys')
@Controller('me/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @BrowserSessionOnly()
  @StepUp()
  @NotWhileImpersonating()
  @ApiOperation({
    summary: 'Create a personal access token',
    description:
      'Needs a browser session with a recent step-up, and an adult. The token (`svc_live_...`) acts in ONE organization ' +
      '(any other organization answers 404), read-only or read-write, and expires after 1..90 days. It is shown only ' +
      'in this response; only its SHA-256 is kept. Send it as `Authorization: Bearer`, never in a URL.',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiErrors(404, [403, 'forbidden', 'organization_suspended', 'impersonation_restricted'])
  create(
    @CurrentCredential() credential: Credential,
    @Body() dto: CreateApiKeyDto,
    @Req() req: Request,
  ): Promise<CreatedApiKeyDto> {
    return this.keys.create(credential, dto, req.ip);
  }

  @Get()
  @ApiOperation({ summary: 'My live personal access tokens (no secrets)' })
  @ApiOkResponse({ type: ApiKeyListDto })
  async list(@CurrentCredential() credential: Credential): Promise<ApiKeyListDto> {
    return { items: await this.keys.list(credential.userId) };
  }

  @Delete(':id')
  @HttpCode(204)
  @NotWhileImpersonating()
  @ApiOperation({
    summary: 'Revoke a personal access token',
    description: 'Effective at once: the token answers 401 from then on.',
  })
  @ApiNoContentResponse()
  @ApiErrors(404, [403, 'impersonation_restricted'])
  async revoke(
    @CurrentCredential() credential: Credential,
    @Param('id', UuidPipe) id: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.keys.revoke(credential, id, req.ip);
  }
}
