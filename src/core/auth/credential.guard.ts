import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '@/core/http/api-error';
import { IS_PUBLIC } from './access.decorators';

/**
 * Global and deny-by-default: an operation not marked `@Public()` needs a credential. Until a credential
 * strategy is registered, every non-public operation answers 401.
 */
@Injectable()
export class CredentialGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    throw ApiError.unauthorized();
  }
}
