import { Controller, Get, Header, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors } from '@/core/http/openapi';
import { StatementQueryDto, StatementResultDto } from './dto/xapi.dto';
import { XapiService } from './xapi.service';

@ApiTags('integrations')
@Controller('organizations/:org_id/xapi')
@OrgScoped()
@Roles('owner', 'admin')
export class XapiController {
  constructor(private readonly xapi: XapiService) {}

  @Get('statements')
  @Header('X-Experience-API-Version', '1.0.3')
  @Header('Cache-Control', 'private, no-store')
  @ApiOperation({
    summary: 'Learning records as xAPI 1.0.3 statements',
    description:
      'An xAPI StatementResult of the organization’s enrollments (`registered`), lesson, course and program ' +
      'completions (`completed`), quiz submissions and closed exam sessions not voided (`passed`/`failed`), ' +
      'generated from the records (nothing is stored twice). Actors are pseudonymous (`account.name` is the user ' +
      'id, never an email); a statement’s `id` is a UUID v5 of its source record, so it never changes. Ascending ' +
      'by `stored` then `id`; `since` (exclusive) and `until` (inclusive) are on `stored`; `more` is the relative ' +
      'URL of the next page (keyset cursor) or "". Personal tokens welcome. 422 for a cursor this service did not ' +
      'give or a verb that is not an IRI.',
  })
  @ApiOkResponse({
    type: StatementResultDto,
    headers: { 'X-Experience-API-Version': { description: '`1.0.3`', schema: { type: 'string' } } },
  })
  @ApiErrors(422)
  statements(@CurrentMembership() member: Membership, @Query() query: StatementQueryDto): Promise<StatementResultDto> {
    return this.xapi.list(member, query);
  }
}
