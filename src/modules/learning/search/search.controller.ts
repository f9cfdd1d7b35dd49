import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { SearchQueryDto, SearchResultDto } from './dto/search.dto';
import { SearchService } from './search.service';

@ApiTags('search')
@Controller('organizations/:org_id/search')
@OrgScoped()
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get()
  @ApiOperation({
    summary: 'Search the catalog of the organization',
    description:
      "Courses and lessons of the courses in this organization's catalog (published, public or restricted to it; " +
      "never drafts, unpublished courses or other organizations' courses), best first. A document matches when its " +
      'words match the query read as Spanish or as English (stemming: `running` finds `run`, `canciones` finds ' +
      '`canción`; accents ignored: `programacion` finds `Programación`). Title matches rank above matches in the ' +
      'body. `type` keeps courses or lessons. The snippet is plain text with the matched words in `[` `]`.',
  })
  @ApiPageResponse(SearchResultDto)
  @ApiErrors(422)
  find(@CurrentMembership() member: Membership, @Query() query: SearchQueryDto): Promise<Page<SearchResultDto>> {
    return this.search.find(member, query);
  }
}
