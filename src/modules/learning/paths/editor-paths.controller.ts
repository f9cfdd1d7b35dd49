import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCredential, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { CreatePathDto, EditorPathQueryDto, PathDto, UpdatePathDto } from './dto/path.dto';
import { PathsService } from './paths.service';

/** A malformed id names nothing: 404, as an unknown one. */
const RULES =
  'Courses must exist in the catalog (422 naming each missing one) and appear once; their positions follow the ' +
  'array order. The slug is unique (409 `slug_taken`) and never shaped like a UUID. A capstone and ' +
  '`issues_certificate` are for programs only (422 otherwise). `restricted` paths are seen only by ' +
  '`organization_ids` (each must exist); organizations see a path once it is `published`.';

@ApiTags('editor', 'paths')
@Controller('editor/paths')
@PlatformRoles('editor')
export class EditorPathsController {
  constructor(private readonly paths: PathsService) {}

  @Get()
  @ApiOperation({
    summary: 'Learning paths and programs of the catalog',
    description: 'Every path and program, any status, most recent first; filter by `kind` and `status`.',
  })
  @ApiPageResponse(PathDto)
  @ApiErrors([422, 'validation_error'])
  list(@Query() query: EditorPathQueryDto): Promise<Page<PathDto>> {
    return this.paths.list(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a learning path or program',
    description: `Status \`draft\` unless given. ${RULES}`,
  })
  @ApiCreatedResponse({ type: PathDto })
  @ApiErrors([409, 'slug_taken'], [422, 'validation_error'])
  create(@Body() dto: CreatePathDto, @CurrentCredential() credential: Credential): Promise<PathDto> {
    return this.paths.create(dto, credential.userId);
  }

  @Get(':path_id')
  @ApiOperation({ summary: 'A learning path or program', description: 'With its courses in order.' })
  @ApiOkResponse({ type: PathDto })
  @ApiErrors([404, 'not_found'])
  get(@Param('path_id', UuidPipe) pathId: string): Promise<PathDto> {
    return this.paths.get(pathId.toLowerCase());
  }

  @Patch(':path_id')
  @ApiOperation({
    summary: 'Update a learning path or program',
    description:
      'Only the fields present are applied; `courses` and `organization_ids` replace the whole list; null clears ' +
      `\`capstone\` and \`badge\`. The result must follow the creation rules. ${RULES} Completions, badges and ` +
      'certificates already granted stay as they are.',
  })
  @ApiOkResponse({ type: PathDto })
  @ApiErrors([404, 'not_found'], [409, 'slug_taken'], [422, 'validation_error'])
  update(@Param('path_id', UuidPipe) pathId: string, @Body() dto: UpdatePathDto): Promise<PathDto> {
    return this.paths.update(pathId.toLowerCase(), dto);
  }

  @Delete(':path_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a learning path or program',
    description:
      'Only a path nobody has a record of: once a program completion, badge, certificate or capstone submission ' +
      'refers to it, 409 `path_in_use` (unpublish it with `PATCH status` instead), as the course delete does. ' +
      'Audited (`path.deleted`).',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors([404, 'not_found'], [409, 'path_in_use'])
  async remove(
    @Param('path_id', UuidPipe) pathId: string,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<void> {
    await this.paths.remove(pathId.toLowerCase(), credential.userId, req.ip);
  }
}
