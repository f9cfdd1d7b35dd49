import { OwnBudget } from '@/core/budgets/budgets';
import {
  All,
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Req,
  Res,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiExcludeEndpoint,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { ScimAuthGuard, type ScimRequest, ScimTokenAuth } from './scim-auth.guard';
import { ScimError, ScimExceptionFilter, SCIM_BASE_PATH, SCIM_MEDIA_TYPE } from './scim-errors';
import { ScimGroupsService } from './scim-groups.service';
import { attributeNames, membersWanted, project, type ScimResource } from './scim-resources';
import { MAX_RESULTS, resourceTypes, SCHEMA, schemas, serviceProviderConfig } from './scim-schemas';
import type { ScimTokenRow } from './scim-tokens.repository';
import { type ListQuery, ScimUsersService } from './scim-users.service';

type ScimQuery = Record<string, unknown>;

const text = (maxLength: number): { type: 'string'; maxLength: number } => ({ type: 'string', maxLength });
/** A SCIM resource (RFC 7643): the common attributes; the rest per resource type, names case-insensitive. */
const SCIM_RESOURCE = {
  type: 'object',
  description: 'A SCIM resource (RFC 7643; see GET /scim/v2/Schemas for its attributes)',
  properties: {
    schemas: { type: 'array', maxItems: 8, items: text(200) },
    id: text(64),
    externalId: text(256),
    meta: { type: 'object', properties: { resourceType: text(32), location: text(2048) } },
  },
};
const LIST_RESPONSE = {
  type: 'object',
  properties: {
    schemas: { type: 'array', items: text(200) },
    totalResults: { type: 'integer' },
    itemsPerPage: { type: 'integer' },
    startIndex: { type: 'integer' },
    Resources: { type: 'array', items: SCIM_RESOURCE },
  },
};
const PATCH_OP = {
  type: 'object',
  required: ['schemas', 'Operations'],
  properties: {
    schemas: { type: 'array', maxItems: 8, items: text(200) },
    Operations: {
      type: 'array',
      maxItems: 1000,
      items: {
        type: 'object',
        required: ['op'],
        properties: { op: text(16), path: text(1000), value: { description: 'Any JSON value' } },
      },
    },
  },
};
const ERRORS = 'SCIM error `{schemas, status, scimType?, detail}` (RFC 7644 3.12)';
const SCIM_ERROR = {
  type: 'object',
  properties: { schemas: { type: 'array', items: text(200) }, status: text(3), scimType: text(32), detail: text(2000) },
};

function ScimErrors(...statuses: number[]): MethodDecorator {
  return (target, key, descriptor) => {
    for (const status of statuses) {
      ApiResponse({ status, description: ERRORS, content: { [SCIM_MEDIA_TYPE]: { schema: SCIM_ERROR } } })(
        target,
        key,
        descriptor,
      );
    }
  };
}

function ok(description: string, status = 200, schema: object = SCIM_RESOURCE): MethodDecorator {
  return ApiResponse({ status, description, content: { [SCIM_MEDIA_TYPE]: { schema } } });
}

const LIST_QUERIES: MethodDecorator = (target, key, descriptor) => {
  for (const [name, description] of [
    ['filter', 'RFC 7644 3.4.2.2 filter on the supported attributes (else 400 invalidFilter)'],
    ['startIndex', '1-based (default 1)'],
    ['count', `0..${MAX_RESULTS} (default 100)`],
    ['attributes', 'comma-separated attributes to return'],
    ['excludedAttributes', 'comma-separated attributes to leave out'],
  ]) {
    ApiQuery({ name, required: false, description, schema: text(2000) })(target, key, descriptor);
  }
};

/**
 * SCIM 2.0 (RFC 7643/7644, extensions-v3 section 2) at `/scim/v2`, outside the `/api/v1` prefix, in the standard's
 * wire format (it wins over the service's conventions here). Only a SCIM token authenticates; the token names the
 * organization. Every error leaves in SCIM form.
 */
@ApiTags('scim')
@ApiProduces(SCIM_MEDIA_TYPE)
@ScimTokenAuth()
// Its own limit per SCIM token (1 200 a minute, scim.limits.ts), not the address budget of anonymous calls.
@OwnBudget()
@UseGuards(ScimAuthGuard)
@UseFilters(ScimExceptionFilter)
@Controller('scim/v2')
export class ScimController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: ScimUsersService,
    private readonly groups: ScimGroupsService,
  ) {}

  private get base(): string {
    return `${this.config.baseUrl}${SCIM_BASE_PATH}`;
  }

  @Get('ServiceProviderConfig')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiOperation({ summary: 'SCIM: what this service provider supports' })
  @ok('ServiceProviderConfig')
  @ScimErrors()
  serviceProviderConfig(): Record<string, unknown> {
    return serviceProviderConfig(this.base, `${this.config.baseUrl}/docs`);
  }

  @Get('ResourceTypes')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiOperation({ summary: 'SCIM: resource types (User, Group)' })
  @ok('ListResponse of ResourceType', 200, LIST_RESPONSE)
  @ScimErrors()
  resourceTypes(): Record<string, unknown> {
    return listResponse(resourceTypes(this.base), 1);
  }

  @Get('ResourceTypes/:resource_type')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiParam({ name: 'resource_type', example: 'User', schema: text(64) })
  @ApiOperation({ summary: 'SCIM: one resource type' })
  @ok('ResourceType')
  @ScimErrors(404)
  resourceType(@Param('resource_type') id: string): Record<string, unknown> {
    const found = resourceTypes(this.base).find((r) => String(r.id).toLowerCase() === id.toLowerCase());
    if (!found) throw ScimError.notFound();
    return found;
  }

  @Get('Schemas')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiOperation({ summary: 'SCIM: schemas (User, EnterpriseUser, Group)' })
  @ok('ListResponse of Schema', 200, LIST_RESPONSE)
  @ScimErrors()
  schemas(): Record<string, unknown> {
    return listResponse(schemas(this.base), 1);
  }

  @Get('Schemas/:schema_urn')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiParam({ name: 'schema_urn', example: SCHEMA.user, schema: text(200) })
  @ApiOperation({ summary: 'SCIM: one schema' })
  @ok('Schema')
  @ScimErrors(404)
  schema(@Param('schema_urn') id: string): Record<string, unknown> {
    const found = schemas(this.base).find((s) => String(s.id).toLowerCase() === id.toLowerCase());
    if (!found) throw ScimError.notFound();
    return found;
  }

  @Get('Users')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @LIST_QUERIES
  @ApiOperation({
    summary: 'SCIM: list or filter members',
    description:
      'Filterable: id, userName, externalId, name.*, displayName, emails.*, active, locale, timezone, ' +
      'the enterprise attributes, meta.created, meta.lastModified, groups.value.',
  })
  @ok('ListResponse of User', 200, LIST_RESPONSE)
  @ScimErrors(400)
  async listUsers(@Req() req: ScimRequest, @Query() query: ScimQuery): Promise<Record<string, unknown>> {
    const list = listQuery(query);
    const { resources, total } = await this.users.list(token(req), list);
    return listResponse(
      resources.map((r) => projected(r, query)),
      list.startIndex,
      total,
    );
  }

  @Post('Users')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiConsumes(SCIM_MEDIA_TYPE, 'application/json')
  @ApiBody({ schema: SCIM_RESOURCE })
  @ApiOperation({
    summary: 'SCIM: provision a member',
    description:
      "Finds or creates the account by email (userName) and adds it with the token's default role. " +
      '409 uniqueness when already a member; 409 with detail `member_limit_reached` when the plan is full.',
  })
  @ok('User', 201)
  @ScimErrors(400, 409)
  async createUser(
    @Req() req: ScimRequest,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ScimResource> {
    const created = await this.users.create(token(req), body);
    res.status(201).setHeader('Location', created.meta.location);
    return created;
  }

  @Get('Users/:id')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiQuery({ name: 'attributes', required: false, schema: text(2000) })
  @ApiQuery({ name: 'excludedAttributes', required: false, schema: text(2000) })
  @ApiOperation({ summary: 'SCIM: one member (a person who is not a member is 404)' })
  @ok('User')
  @ScimErrors(404)
  async getUser(
    @Req() req: ScimRequest,
    @Param('id') id: string,
    @Query() query: ScimQuery,
  ): Promise<Record<string, unknown>> {
    return projected(await this.users.get(token(req), id), query);
  }

  @Put('Users/:id')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiBody({ schema: SCIM_RESOURCE })
  @ApiOperation({
    summary: "SCIM: replace a member's attributes",
    description: 'An omitted `active` means true; `active: false` suspends the membership. Owners: 403.',
  })
  @ok('User')
  @ScimErrors(400, 403, 404, 409)
  replaceUser(@Req() req: ScimRequest, @Param('id') id: string, @Body() body: unknown): Promise<ScimResource> {
    return this.users.replace(token(req), id, body);
  }

  @Patch('Users/:id')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiBody({ schema: PATCH_OP })
  @ApiOperation({
    summary: 'SCIM: patch a member (PatchOp)',
    description: '`add`, `replace`, `remove`, with or without `path`, value-path filters. Owners: 403.',
  })
  @ok('User')
  @ScimErrors(400, 403, 404, 409)
  patchUser(@Req() req: ScimRequest, @Param('id') id: string, @Body() body: unknown): Promise<ScimResource> {
    return this.users.patch(token(req), id, body);
  }

  @Delete('Users/:id')
  @HttpCode(204)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'SCIM: end a membership (the account stays). Owners: 403.' })
  @ApiResponse({ status: 204, description: 'The membership ended' })
  @ScimErrors(403, 404)
  async deleteUser(@Req() req: ScimRequest, @Param('id') id: string): Promise<void> {
    await this.users.remove(token(req), id);
  }

  @Get('Groups')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @LIST_QUERIES
  @ApiOperation({
    summary: 'SCIM: list or filter cohorts',
    description: 'Filterable: id, displayName, externalId, members.value, meta.created, meta.lastModified.',
  })
  @ok('ListResponse of Group', 200, LIST_RESPONSE)
  @ScimErrors(400)
  async listGroups(@Req() req: ScimRequest, @Query() query: ScimQuery): Promise<Record<string, unknown>> {
    const list = listQuery(query);
    const withMembers = membersWanted(attrs(query, 'attributes'), attrs(query, 'excludedAttributes'));
    const { resources, total } = await this.groups.list(token(req), list, withMembers);
    return listResponse(
      resources.map((r) => projected(r, query)),
      list.startIndex,
      total,
    );
  }

  @Post('Groups')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiConsumes(SCIM_MEDIA_TYPE, 'application/json')
  @ApiBody({ schema: SCIM_RESOURCE })
  @ApiOperation({ summary: 'SCIM: create a cohort (name unique in the organization; at most 10 000 members)' })
  @ok('Group', 201)
  @ScimErrors(400, 409)
  async createGroup(
    @Req() req: ScimRequest,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ScimResource> {
    const created = await this.groups.create(token(req), body);
    res.status(201).setHeader('Location', created.meta.location);
    return created;
  }

  @Get('Groups/:id')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiQuery({ name: 'attributes', required: false, schema: text(2000) })
  @ApiQuery({ name: 'excludedAttributes', required: false, schema: text(2000) })
  @ApiOperation({ summary: 'SCIM: one cohort' })
  @ok('Group')
  @ScimErrors(404)
  async getGroup(
    @Req() req: ScimRequest,
    @Param('id') id: string,
    @Query() query: ScimQuery,
  ): Promise<Record<string, unknown>> {
    const withMembers = membersWanted(attrs(query, 'attributes'), attrs(query, 'excludedAttributes'));
    return projected(await this.groups.get(token(req), id, withMembers), query);
  }

  @Put('Groups/:id')
  @Header('Content-Type', SCIM_MEDIA_TYPE)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiBody({ schema: SCIM_RESOURCE })
  @ApiOperation({ summary: 'SCIM: replace a cohort (name, externalId, members)' })
  @ok('Group')
  @ScimErrors(400, 404, 409)
  replaceGroup(@Req() req: ScimRequest, @Param('id') id: string, @Body() body: unknown): Promise<ScimResource> {
    return this.groups.replace(token(req), id, body);
  }

  @Patch('Groups/:id')
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiBody({ schema: PATCH_OP })
  @ApiOperation({
    summary: 'SCIM: patch a cohort (PatchOp)',
    description:
      'Members `add`, `remove` (also `members[value eq "id"]`), `replace`; displayName; externalId. ' +
      'Answers the Group (204 when `excludedAttributes=members`, as Entra asks).',
  })
  @ok('Group')
  @ApiResponse({ status: 204, description: 'Patched (members not asked for)' })
  @ScimErrors(400, 404, 409)
  async patchGroup(
    @Req() req: ScimRequest,
    @Param('id') id: string,
    @Body() body: unknown,
    @Query() query: ScimQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<Record<string, unknown> | undefined> {
    const withMembers = membersWanted(attrs(query, 'attributes'), attrs(query, 'excludedAttributes'));
    const group = await this.groups.patch(token(req), id, body, withMembers);
    if (!group) {
      res.status(204);
      return undefined;
    }
    res.type(SCIM_MEDIA_TYPE);
    return projected(group, query);
  }

  @Delete('Groups/:id')
  @HttpCode(204)
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOperation({ summary: 'SCIM: delete a cohort (the cohort DELETE rule)' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @ScimErrors(404)
  async deleteGroup(@Req() req: ScimRequest, @Param('id') id: string): Promise<void> {
    await this.groups.remove(token(req), id);
  }

  /** Anything else under the base (`POST /.search` among them: not offered) is 404 in SCIM form. */
  @All('{*path}')
  @ApiExcludeEndpoint()
  unknown(): never {
    throw ScimError.notFound();
  }
}

function token(req: ScimRequest): ScimTokenRow {
  if (!req.scimToken) throw new ScimError(401, 'A valid SCIM token is required.');
  return req.scimToken;
}

function single(query: ScimQuery, name: string): string | undefined {
  const key = Object.keys(query).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : query[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw ScimError.badRequest('invalidSyntax', `${name} is given once, as text.`);
  return value;
}

function attrs(query: ScimQuery, name: string): Set<string> | null {
  return attributeNames(single(query, name));
}

/** RFC 7644 3.4.2.4: a startIndex below 1 is 1; a negative count is 0; above maxResults is maxResults. */
function listQuery(query: ScimQuery): ListQuery {
  const startIndex = Number.parseInt(single(query, 'startIndex') ?? '1', 10);
  const count = Number.parseInt(single(query, 'count') ?? '100', 10);
  return {
    filter: single(query, 'filter'),
    startIndex: Number.isFinite(startIndex) && startIndex >= 1 ? startIndex : 1,
    count: Number.isFinite(count) ? Math.min(MAX_RESULTS, Math.max(0, count)) : 100,
  };
}

function projected(resource: ScimResource, query: ScimQuery): Record<string, unknown> {
  return project(resource, attrs(query, 'attributes'), attrs(query, 'excludedAttributes'));
}

function listResponse(
  resources: Record<string, unknown>[],
  startIndex: number,
  total = resources.length,
): Record<string, unknown> {
  return {
    schemas: [SCHEMA.listResponse],
    totalResults: total,
    itemsPerPage: resources.length,
    startIndex,
    Resources: resources,
  };
}
