import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Public } from '@/core/auth/access.decorators';
import { OutsideBudgets } from '@/core/budgets/budgets';
import { ApiError } from '@/core/http/api-error';
import { ApiErrors } from '@/core/http/openapi';
import { MetricsService } from '@/core/metrics/metrics.service';

@ApiTags('health')
@Public()
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('metrics')
  @OutsideBudgets()
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Prometheus metrics of this process (operators)',
    description:
      'Prometheus text format: `http_request_duration_seconds` by method, route template and status; ' +
      '`job_duration_seconds` and `job_failures_total` by queue and job; `jobs_depth` and ' +
      '`jobs_oldest_due_seconds` (the outbox: shared figures, read from the database at scrape time); ' +
      '`domain_event_deliveries` (pending, failed, lag_seconds); `db_pool_connections`; event-loop lag and memory ' +
      '(`nodejs_*`, `process_*`). Not public: only with `Authorization: Bearer <METRICS_TOKEN>` (a wrong or missing ' +
      'token is 401). Without `METRICS_TOKEN` this route is 404; with `METRICS_PORT` the same text is served on ' +
      'that separate port (loopback by default), by the worker process too.',
  })
  @ApiOkResponse({
    description: 'Prometheus exposition format 0.0.4',
    content: { 'text/plain': { schema: { type: 'string', maxLength: 10_000_000 } } },
  })
  @ApiErrors([401, 'unauthorized'], [404, 'not_found'])
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() res: Response): Promise<void> {
    if (!this.config.metrics.token) throw ApiError.notFound();
    if (!this.metrics.authorized(authorization)) {
      throw new ApiError('unauthorized', 'The metrics token is missing or wrong.', undefined, {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    const { contentType, body } = await this.metrics.render();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(body);
  }
}
