import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentCredential, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { CreateSuppressionDto, SuppressionDto, SuppressionListQueryDto } from './dto/email-suppressions.dto';
import { EmailSuppressionsService } from './email-suppressions.service';

@ApiTags('webhooks')
@Controller('admin/email-suppressions')
@PlatformRoles('platform_admin')
export class EmailSuppressionsController {
  constructor(private readonly suppressions: EmailSuppressionsService) {}

  @Get()
  @ApiOperation({
    summary: 'The email suppression list (platform admin)',
    description:
      'Newest first. `email` finds the entry of one exact address (compared by its keyed hash, any case: the list ' +
      'stores no address); `reason` keeps one reason. `hard_bounce` and `manual` stop every message to the address; ' +
      '`complaint` stops notification and announcement emails but not transactional ones.',
  })
  @ApiPageResponse(SuppressionDto)
  @ApiErrors(422)
  list(@Query() query: SuppressionListQueryDto): Promise<Page<SuppressionDto>> {
    return this.suppressions.list(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Suppress an address by hand (platform admin)',
    description:
      '201 with the new entry; 200 with the existing entry when the address is already suppressed (a `complaint` ' +
      'entry becomes `manual`, which also stops transactional messages).',
  })
  @ApiCreatedResponse({ type: SuppressionDto, description: 'Suppressed' })
  @ApiOkResponse({ type: SuppressionDto, description: 'Already suppressed' })
  @ApiErrors(422)
  async create(@Body() dto: CreateSuppressionDto, @Res({ passthrough: true }) res: Response): Promise<SuppressionDto> {
    const { entry, created } = await this.suppressions.addManual(dto.email);
    res.status(created ? 201 : 200);
    return entry;
  }

  @Delete(':suppression_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Lift a suppression (platform admin)',
    description: 'The address receives every kind of email again. Audited (`email_suppression.removed`).',
  })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(404)
  async remove(
    @Param('suppression_id', UuidPipe) id: string,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<void> {
    await this.suppressions.remove(id.toLowerCase(), credential.userId, req.ip);
  }
}
