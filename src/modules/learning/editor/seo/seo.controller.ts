import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PlatformRoles } from '@/core/auth/access.decorators';
import { SeoRebuildDto } from '@/modules/learning/editor/dto/editor.dto';
import { SeoService } from './seo.service';

@ApiTags('editor')
@Controller('editor/seo')
@PlatformRoles('editor')
export class SeoController {
  constructor(private readonly seo: SeoService) {}

  @Post('rebuild-all')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Regenerate the static SEO pages of all published courses',
    description:
      'One HTML page per published course at `seo/courses/{slug}.html` in the file store (`STORAGE_URL`, stored as ' +
      'plain HTML for a web server or CDN): escaped title and summary, ' +
      'the description rendered from markdown (raw HTML shown escaped), the lesson outline, `<link rel="canonical">` ' +
      'to `{web_url}/courses/{slug}`, a meta description and schema.org `Course` JSON-LD. A page whose content did not ' +
      'change is not rewritten (`skipped`); pages are written atomically; pages of courses no longer published are ' +
      'removed. `slugs` lists the pages written.',
  })
  @ApiOkResponse({ type: SeoRebuildDto })
  rebuildAll(): Promise<SeoRebuildDto> {
    return this.seo.rebuildAll();
  }
}
