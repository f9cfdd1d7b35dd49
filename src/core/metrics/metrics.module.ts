import { Global, Module } from '@nestjs/common';
import { MetricsService } from './metrics.service';

/** Prometheus metrics of the process, for every area and the job runner. */
@Global()
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule {}
