import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentCredential } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiError } from '@/core/http/api-error';
import { ApiErrors } from '@/core/http/openapi';
import { isUuid } from '@/core/http/uuid';
import { TokenService } from './token.service';

@ApiTags('users')
@Controller('me/integrations')
export class IntegrationsController {
  constructor(private readonly tokens: TokenService) {}

  @Delete(':integration_id')
  @HttpCode(204)
  @ApiParam({ name: 'integration_id', format: 'uuid' })
  @ApiOperation({
    summary: 'Disconnect an integration',
    description:
      'For a connected application (OAuth grant) every token it holds stops working at once. Unknown or another ' +
      "person's integration: 404.",
  })
  @ApiNoContentResponse()
  @ApiErrors([404, 'not_found'])
  async revoke(@CurrentCredential() credential: Credential, @Param('integration_id') id: string): Promise<void> {
    if (!isUuid(id) || !(await this.tokens.revokeIntegration(credential.userId, id.toLowerCase()))) {
      throw ApiError.notFound();
    }
  }
}
