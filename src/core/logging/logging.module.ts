import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '@/config/app-config';
import { AppLogger, createLoggers } from './logger';

@Global()
@Module({})
export class LoggingModule implements OnApplicationShutdown {
  constructor(@Inject(AppLogger) private readonly logger: AppLogger) {}

  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: LoggingModule,
      providers: [
        {
          provide: AppLogger,
          useFactory: () => {
            const { app, access } = createLoggers(config);
            return new AppLogger(app, access);
          },
        },
      ],
      exports: [AppLogger],
    };
  }

  onApplicationShutdown(): void {
    this.logger.flush();
  }
}
