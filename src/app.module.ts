import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@/config/app-config';
import { CoreModule } from '@/core/core.module';
import { HealthModule } from '@/modules/health/health.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: AppModule, imports: [CoreModule.forRoot(config), HealthModule] };
  }
}
