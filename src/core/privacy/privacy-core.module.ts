import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { PersonalDataRegistry } from './personal-data';

/** The personal-data registry every area registers its tables with. */
@Global()
@Module({ imports: [DiscoveryModule], providers: [PersonalDataRegistry], exports: [PersonalDataRegistry] })
export class PrivacyCoreModule {}
