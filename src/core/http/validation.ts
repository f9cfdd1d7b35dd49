import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ApiError, type ErrorDetail } from './api-error';

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    for (const message of Object.values(e.constraints ?? {})) out.push({ field, message });
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

/**
 * Validates every body, query and path DTO: unknown fields are refused, values are transformed to their
 * declared types, and a failure is 422 `validation_error` with one detail per broken rule.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => ApiError.validation(flatten(errors)),
  });
}

export { flatten as flattenValidationErrors };
