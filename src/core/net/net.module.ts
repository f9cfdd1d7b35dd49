import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { GuardedNet } from './guarded-net';

/** The one guarded way out (extensions-v3 6.7): loopback only outside production, names through `DNS_RESOLVER`. */
@Global()
@Module({
  providers: [
    {
      provide: GuardedNet,
      useFactory: (config: AppConfig) =>
        new GuardedNet({ allowLoopback: !config.isProduction, resolver: config.sso.dnsResolver }),
      inject: [APP_CONFIG],
    },
  ],
  exports: [GuardedNet],
})
export class NetModule {}
