import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '@/core/auth/access.decorators';
import { OutsideBudgets } from '@/core/budgets/budgets';
import { buildInfo } from '@/core/build-info';
import { ApiError } from '@/core/http/api-error';
import { HEALTH_BODY } from '@/core/http/health-fast-path';
import { ShutdownState } from '@/core/http/shutdown';
import { ApiErrors } from '@/core/http/openapi';
import { HealthDto, VersionDto } from './dto/health.dto';
import { HealthService } from './health.service';

@ApiTags('health')
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthService,
    private readonly shutdown: ShutdownState,
  ) {}

  @Get('health')
  @OutsideBudgets()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Liveness: the process answers',
    description: 'Touches neither the database nor the cache.',
  })
  @ApiOkResponse({ type: HealthDto })
  live(): HealthDto {
    return JSON.parse(HEALTH_BODY) as HealthDto;
  }

  @Get('ready')
  @OutsideBudgets()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Readiness: the database, the cache/queue backend and the file store respond',
    description:
      'Answers 503 with the error envelope (`service_unavailable`) naming what did not respond, and from the first ' +
      'moment of a SIGTERM (the instance is draining before it stops; `SHUTDOWN_DRAIN_MS`). The file store is ' +
      'checked with a `HEAD` on the bucket (`s3://`) or a writable folder (`file://`).',
  })
  @ApiOkResponse({ type: HealthDto })
  @ApiErrors([503, 'service_unavailable'])
  async ready(): Promise<HealthDto> {
    if (this.shutdown.draining) throw new ApiError('service_unavailable', 'Not ready: shutting down.');
    const r = await this.health.readiness();
    const down = [!r.database && 'database', !r.queue && 'queue', !r.cache && 'cache', !r.storage && 'storage'].filter(
      Boolean,
    );
    if (down.length > 0) throw new ApiError('service_unavailable', `Not ready: ${down.join(', ')} not responding.`);
    return { status: 'ok' };
  }

  @Get('version')
  @ApiOperation({ summary: 'The running code: version, commit, build time and expected migration' })
  @ApiOkResponse({ type: VersionDto })
  version(): VersionDto {
    return buildInfo();
  }
}
