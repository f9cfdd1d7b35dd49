import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { PlatformRoles } from '@/core/auth/access.decorators';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { type Page, toPage } from '@/core/http/pagination';
import { JobsService } from '@/core/queue/jobs.service';
import { OutboxJobDto, OutboxQueryDto } from './dto/outbox.dto';

@ApiTags('health')
@Controller('admin/jobs')
@PlatformRoles('platform_admin')
export class OperationsController {
  constructor(private readonly jobs: JobsService) {}

  @Get()
  @ApiOperation({
    summary: 'Background jobs not yet done (the outbox), for platform admins',
    description:
      'Every job is first a row of the outbox (`jobs`) and only then handed to its Bull queue, so this list shows ' +
      'what is due, delayed, running or failed for good whatever Redis holds (and also without Redis). Oldest due ' +
      'first. Payloads are not shown. The Bull queues themselves are on the dashboard at `/admin/queues` ' +
      '(bull-board, platform-admin browser sessions).',
  })
  @ApiPageResponse(OutboxJobDto)
  @ApiErrors(422)
  async list(@Query() query: OutboxQueryDto): Promise<Page<OutboxJobDto>> {
    const { rows, total } = await this.jobs.outbox({
      statuses: query.status ? [query.status] : ['pending', 'running'],
      queue: query.queue,
      limit: query.limit,
      offset: query.offset,
    });
    return toPage(
      rows.map((r) => ({
        ...r,
        last_error: r.last_error?.slice(0, 2000) ?? null,
        run_after: r.run_after.toISOString(),
        created_at: r.created_at.toISOString(),
        updated_at: r.updated_at.toISOString(),
      })),
      total,
      query,
    );
  }
}
