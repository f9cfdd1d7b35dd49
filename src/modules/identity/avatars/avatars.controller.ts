import { applyDecorators, Body, Controller, Get, Param, Put, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentCredential, MinorAccess } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiError } from '@/core/http/api-error';
import { ApiErrors } from '@/core/http/openapi';
import { isUuid } from '@/core/http/uuid';
import type { AvatarCatalog } from './avatar-style';
import { AvatarsService, type RenderedAvatar } from './avatars.service';
import { AvatarCatalogDto, SavedAvatarDto } from './dto/avatar-catalog.dto';
import { AvatarPreviewQueryDto, SaveAvatarDto, UserAvatarQueryDto } from './dto/avatar-options.dto';

const AVATAR_CACHE_CONTROL = 'private, max-age=600';
const SVG_CONTENT_TYPE = 'image/svg+xml; charset=utf-8';

/**
 * The documented answers of an SVG read: the image, or 304 when the client's copy is current. The image type
 * is set on the 200 alone: an operation-wide `@ApiProduces` would also list the JSON error envelopes as SVG.
 */
function ApiSvgResponses(): MethodDecorator {
  return applyDecorators(
    ApiOkResponse({
      description: 'The sanitized SVG (`image/svg+xml; charset=utf-8`)',
      content: { 'image/svg+xml': { schema: { type: 'string' } } },
      headers: {
        ETag: { description: 'Strong validator: a SHA-256 of the exact bytes', schema: { type: 'string' } },
        'Cache-Control': { description: '`private, max-age=600`', schema: { type: 'string' } },
      },
    }),
    ApiResponse({ status: 304, description: 'Not modified: `If-None-Match` names the current ETag (no body)' }),
  );
}

/** RFC 9110 weak comparison, as If-None-Match requires: `W/` prefixes are ignored and `*` matches anything. */
function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

@ApiTags('avatars')
@Controller()
export class AvatarsController {
  constructor(private readonly avatars: AvatarsService) {}

  @Get('avatars/options')
  @ApiOperation({
    summary: 'The avatar catalog',
    description:
      'Traits (variant names), colors (lowercase `#rrggbb`) and named backgrounds a person can choose, with the ' +
      "style's version and the artwork's license.",
  })
  @ApiOkResponse({ type: AvatarCatalogDto, description: 'The catalog' })
  options(): AvatarCatalog {
    return this.avatars.catalog();
  }

  @Get('avatars/preview.svg')
  @ApiOperation({
    summary: 'Preview an avatar',
    description:
      'Renders the options without saving anything. Options left out (or empty) are decided by the seed; the same ' +
      'seed and options always give the same bytes. A well-formed value the style does not offer (see ' +
      '`GET /avatars/options`) is 422 `validation_error`.',
  })
  @ApiSvgResponses()
  @ApiErrors([422, 'validation_error'])
  preview(@Query() query: AvatarPreviewQueryDto, @Req() req: Request, @Res() res: Response): void {
    sendSvg(req, res, this.avatars.preview(query));
  }

  @Get('users/:id/avatar.svg')
  @ApiOperation({
    summary: "A person's generated avatar",
    description:
      'Their saved choice, or one decided by their id when they have none; the generated avatar even when they ' +
      'have a photo (`avatar_url`). 404 for anyone who neither is the person nor shares the organization of the ' +
      'request, and for an unknown id.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiSvgResponses()
  @ApiErrors([404, 'not_found'], [422, 'validation_error'])
  async userAvatar(
    @CurrentCredential() credential: Credential,
    @Param('id') id: string,
    // Validated for its length only: `v` exists so a changed choice gets a new address.
    @Query() _query: UserAvatarQueryDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    if (!isUuid(id)) throw ApiError.notFound();
    sendSvg(req, res, await this.avatars.forUser(credential, id.toLowerCase()));
  }

  @Put('me/avatar')
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Save the own avatar choice',
    description:
      'Same options and rules as the preview; null or absent fields are decided by the seed. Colors are saved as ' +
      'lowercase `#rrggbb`. Answers the saved choice and the new `avatar_svg_url`.',
  })
  @ApiOkResponse({ type: SavedAvatarDto, description: 'The saved choice and the address of the avatar' })
  @ApiErrors([422, 'validation_error'])
  save(@CurrentCredential() credential: Credential, @Body() dto: SaveAvatarDto): Promise<SavedAvatarDto> {
    return this.avatars.save(credential.userId, dto);
  }
}

function sendSvg(req: Request, res: Response, avatar: RenderedAvatar): void {
  res.setHeader('ETag', avatar.etag);
  res.setHeader('Cache-Control', AVATAR_CACHE_CONTROL);
  if (ifNoneMatchMatches(req.headers['if-none-match'], avatar.etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).setHeader('Content-Type', SVG_CONTENT_TYPE);
  res.send(avatar.svg);
}
