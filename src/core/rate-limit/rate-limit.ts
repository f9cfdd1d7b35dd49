import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { Request } from 'express';
import { ErrorEnvelopeDto } from '@/core/http/openapi';

/** What a limit counts by: the client address, the signed-in account, or a key read from the request. */
export type RateLimitKey = 'ip' | 'account' | { describe: string; from: (req: Request) => string | null };

export interface RateLimitPolicy {
  /** Stable name; counters of different policies never mix. */
  readonly name: string;
  /** Requests allowed per window. */
  readonly points: number;
  /** Window in seconds. */
  readonly durationSeconds: number;
  readonly key: RateLimitKey;
}

export const RATE_LIMITS = Symbol('RATE_LIMITS');

export function describePolicy(p: RateLimitPolicy): string {
  const by = p.key === 'ip' ? 'client address' : p.key === 'account' ? 'account' : p.key.describe;
  return `${p.points} per ${formatWindow(p.durationSeconds)} per ${by}`;
}

function formatWindow(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

/** A key from a JSON body field, normalized (trimmed, lower case); absent or non-string gives no key. */
export function bodyField(field: string, describe = field): RateLimitKey {
  return {
    describe,
    from: (req) => {
      const value = (req.body as Record<string, unknown> | undefined)?.[field];
      return typeof value === 'string' && value.trim() !== '' ? value.trim().toLowerCase() : null;
    },
  };
}

/**
 * Applies rate limits to an operation (all of them are counted; the first exhausted answers 429 with
 * Retry-After) and documents them in the OpenAPI description.
 */
export function RateLimit(...policies: RateLimitPolicy[]): MethodDecorator {
  return applyDecorators(
    SetMetadata(RATE_LIMITS, policies),
    ApiExtension('x-rate-limits', policies.map(describePolicy)),
    ApiResponse({
      status: 429,
      description: `Rate limited (\`too_many_requests\`, header \`Retry-After\` in seconds). Limits: ${policies
        .map(describePolicy)
        .join('; ')}`,
      schema: { $ref: getSchemaPath(ErrorEnvelopeDto) },
    }),
  );
}
