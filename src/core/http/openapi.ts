import { applyDecorators, type Type as ClassType } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  type ApiResponseOptions,
  getSchemaPath,
} from '@nestjs/swagger';
import { STATUS_DEFAULTS } from './api-error';
import { ERROR_CODES, type ErrorCode } from './error-codes';

export class ErrorDetailDto {
  @ApiProperty({ example: 'email' }) field!: string;
  @ApiProperty({ example: 'email must be an email' }) message!: string;
}

export class ErrorBodyDto {
  @ApiProperty({
    description: 'Stable machine-readable code (the catalog: docs/error-codes.md)',
    example: 'not_found',
    enum: Object.keys(ERROR_CODES),
  })
  code!: string;
  @ApiProperty({ description: 'Human-readable explanation', example: 'Not found.' }) message!: string;
  @ApiPropertyOptional({ description: 'Equals the X-Request-Id response header' }) request_id?: string;
  @ApiPropertyOptional({ type: [ErrorDetailDto], description: 'One entry per broken rule (422 only)' })
  details?: ErrorDetailDto[];
}

/** The error envelope shared by every error response. */
export class ErrorEnvelopeDto {
  @ApiProperty({ type: ErrorBodyDto }) error!: ErrorBodyDto;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Credential absent, invalid or expired (`unauthorized`)',
  403: 'Not permitted (`forbidden`, `organization_suspended`, `step_up_required`, `credential_read_only`)',
  404: 'Missing or not visible to the caller (`not_found`)',
  409: 'Conflicts with the current state',
  410: 'Gone',
  413: 'Too large',
  422: 'Invalid body or parameters (`validation_error` with `details`)',
  429: 'Rate limited (`too_many_requests`); wait `Retry-After` seconds',
  500: 'Internal failure (`internal_error`)',
  503: 'Unavailable',
};

/**
 * Documents error responses of an operation with the shared envelope. Pass a status, or `[status, codes...]`
 * to name the codes this operation can answer with that status.
 */
export function ApiErrors(...entries: (number | [number, ...ErrorCode[]])[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto),
    ...entries.map((entry) => {
      const [status, ...codes] = Array.isArray(entry) ? entry : [entry];
      // The compiler checks that each code exists; its status is checked here, when the controller loads.
      for (const code of codes) {
        if (ERROR_CODES[code].status !== status) {
          throw new Error(`@ApiErrors: \`${code}\` is a ${ERROR_CODES[code].status} code, listed under ${status}`);
        }
      }
      const base = DESCRIPTIONS[status] ?? STATUS_DEFAULTS[status]?.message ?? 'Error';
      const description = codes.length ? `${base}. Codes: ${codes.map((c) => `\`${c}\``).join(', ')}` : base;
      return ApiResponse({ status, description, schema: { $ref: getSchemaPath(ErrorEnvelopeDto) } });
    }),
  );
}

/** Documents a 200 page `{items, total, limit, offset}` of `model` (with its response `headers`, if any). */
export function ApiPageResponse(
  model: ClassType<unknown>,
  description = 'A page of results',
  headers?: ApiResponseOptions['headers'],
): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status: 200,
      description,
      ...(headers ? { headers } : {}),
      schema: {
        type: 'object',
        required: ['items', 'total', 'limit', 'offset'],
        properties: {
          items: { type: 'array', items: { $ref: getSchemaPath(model) } },
          total: { type: 'integer', minimum: 0 },
          limit: { type: 'integer', minimum: 1, maximum: 200 },
          offset: { type: 'integer', minimum: 0 },
        },
      },
    }),
  );
}
