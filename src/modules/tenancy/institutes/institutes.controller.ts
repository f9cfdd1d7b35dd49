import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentCredential } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { UuidPipe } from '@/core/http/uuid';
import {
  CreateInstituteDto,
  INSTITUTE_LINKS,
  InstituteDto,
  InstituteListDto,
  UpdateInstituteDto,
} from './dto/institute.dto';
import { InstitutesService } from './institutes.service';

/** Acts in the organization of the request: a token's own organization, or the session's active one. */
const ACTS_IN =
  'Acts in the organization of the request: a personal or OAuth token’s own organization, or the active ' +
  'organization of a cookie session (404 when there is none or the caller is no longer a member; 403 ' +
  '`organization_suspended` when it is suspended).';

@ApiTags('cohorts')
@Controller('institutes')
export class InstitutesController {
  constructor(private readonly institutes: InstitutesService) {}

  @Get()
  @ApiOperation({
    summary: 'Institutes linked to my organization',
    description: `${INSTITUTE_LINKS} Each comes with the count of ITS cohorts in this organization; other organizations' cohorts are never counted. ${ACTS_IN}`,
  })
  @ApiOkResponse({ type: InstituteListDto })
  @ApiErrors(404, [403, 'organization_suspended'])
  list(@CurrentCredential() credential: Credential): Promise<InstituteListDto> {
    return this.institutes.list(credential);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'An institute with its cohorts in my organization',
    description: `Only its cohorts in this organization are listed. An institute not linked to the organization is 404 \`not_found\`. ${INSTITUTE_LINKS} ${ACTS_IN}`,
  })
  @ApiOkResponse({ type: InstituteDto })
  @ApiErrors(404, [403, 'organization_suspended'])
  get(@CurrentCredential() credential: Credential, @Param('id', UuidPipe) id: string): Promise<InstituteDto> {
    return this.institutes.get(credential, id.toLowerCase());
  }

  @Post()
  @ApiOperation({
    summary: 'Create an institute',
    description: `Owner/admin of the organization of the request (others 403). The organization that creates an institute is linked to it, so it appears in its list and its cohorts can name it. Audited (\`institute.created\`). ${ACTS_IN}`,
  })
  @ApiCreatedResponse({ type: InstituteDto })
  @ApiErrors(404, [403, 'forbidden', 'organization_suspended'], 422)
  create(
    @CurrentCredential() credential: Credential,
    @Body() dto: CreateInstituteDto,
    @Req() req: Request,
  ): Promise<InstituteDto> {
    return this.institutes.create(credential, dto, req.ip);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update an institute',
    description: `Owner/admin of the organization of the request (others 403), for an institute linked to it (else 404). Only the fields present are applied; null clears the nullable ones. An institute that another organization is linked to as well cannot be changed from one of them (409 \`institute_shared\`). Audited (\`institute.updated\`). ${ACTS_IN}`,
  })
  @ApiOkResponse({ type: InstituteDto })
  @ApiErrors(404, [403, 'forbidden', 'organization_suspended'], [409, 'institute_shared'], 422)
  update(
    @CurrentCredential() credential: Credential,
    @Param('id', UuidPipe) id: string,
    @Body() dto: UpdateInstituteDto,
    @Req() req: Request,
  ): Promise<InstituteDto> {
    return this.institutes.update(credential, id.toLowerCase(), dto, req.ip);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete an institute',
    description: `Owner/admin of the organization of the request (others 403), for an institute linked to it (else 404). Its cohorts keep existing without an institute. An institute that another organization is linked to as well cannot be deleted (409 \`institute_shared\`). Audited (\`institute.deleted\`). ${ACTS_IN}`,
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404, [403, 'forbidden', 'organization_suspended'], [409, 'institute_shared'])
  async remove(
    @CurrentCredential() credential: Credential,
    @Param('id', UuidPipe) id: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.institutes.remove(credential, id.toLowerCase(), req.ip);
  }
}
