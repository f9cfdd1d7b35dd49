import { type CanActivate, Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { ApiError } from '@/core/http/api-error';

/** `LTI_ENABLED=false` answers 404 `feature_disabled` on every route of the area (extensions-v3 7). */
@Injectable()
export class LtiEnabledGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(): boolean {
    if (!this.config.lti.enabled) throw ApiError.notFound('LTI is switched off here.', 'feature_disabled');
    return true;
  }
}
