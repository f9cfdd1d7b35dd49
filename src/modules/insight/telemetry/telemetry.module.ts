import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AdminTelemetryController, TelemetryController } from './telemetry.controller';
import { TelemetryJobs } from './telemetry.schedules';
import { TelemetryRepository } from './telemetry.repository';
import { samplerFromConfig, TelemetrySampler, TelemetryService } from './telemetry.service';

/** Web vitals and client errors without personal data (extensions-v2 21). */
@Module({
  controllers: [TelemetryController, AdminTelemetryController],
  providers: [
    TelemetryRepository,
    TelemetryService,
    TelemetryJobs,
    { provide: TelemetrySampler, useFactory: (config: AppConfig) => samplerFromConfig(config), inject: [APP_CONFIG] },
  ],
})
export class TelemetryModule {}
