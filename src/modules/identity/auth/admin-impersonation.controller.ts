import { Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCredential, NotWhileImpersonating, PlatformRoles, StepUp } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { Client, type ClientInfo } from '@/core/http/client-info';
import { CookieService } from '@/core/http/cookies';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { UuidPipe } from '@/core/http/uuid';
import { IMPERSONATE_ACCOUNT } from './auth.limits';
import { ImpersonationStatusDto } from './dto/auth.dto';
import { ImpersonationService, IMPERSONATION_TTL_SECONDS } from './impersonation.service';

@ApiTags('auth')
@Controller('admin/users')
export class AdminImpersonationController {
  constructor(
    private readonly impersonation: ImpersonationService,
    private readonly cookies: CookieService,
  ) {}

  @Post(':user_id/impersonate')
  @HttpCode(200)
  @PlatformRoles('platform_admin')
  @StepUp()
  @NotWhileImpersonating()
  @RateLimit(IMPERSONATE_ACCOUNT)
  @ApiOperation({
    summary: 'Act as a person (support)',
    description:
      `Opens a marked session of that person in this browser for ${IMPERSONATION_TTL_SECONDS / 60} minutes (its cookies replace ` +
      'yours). It cannot change email, two-factor or tokens. Audited (`user.impersonation_started`). End it with ' +
      '`POST /api/v1/auth/impersonation/end`.',
  })
  @ApiOkResponse({ type: ImpersonationStatusDto })
  @ApiErrors(404)
  async start(
    @CurrentCredential() credential: Credential,
    @Param('user_id', UuidPipe) userId: string,
    @Client() client: ClientInfo,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ImpersonationStatusDto> {
    const { status, cookies } = await this.impersonation.start(credential, userId, client);
    this.cookies.apply(res, cookies);
    return status;
  }
}
