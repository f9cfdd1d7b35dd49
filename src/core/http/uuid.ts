import { Injectable, type PipeTransform } from '@nestjs/common';
import { ApiError } from './api-error';

/**
 * The one UUID shape of the service: 8-4-4-4-12 hexadecimal digits, any case (what PostgreSQL's `uuid` type
 * accepts). Anything else never reaches a query, where casting it would fail.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Matches any value not shaped like a (lower-case) UUID: slugs never take that shape, so that "id or slug" path
 * parameters stay unambiguous.
 */
export const NOT_UUID_SHAPED = new RegExp(`^(?!${UUID_PATTERN.source.slice(1, -1)}$)`);

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

/**
 * An id path parameter: a value that is not a UUID names nothing, so it answers 404 `not_found` (never 400 or
 * a database error). `@Param('cohort_id', UuidPipe) cohortId: string`.
 */
@Injectable()
export class UuidPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (!isUuid(value)) throw ApiError.notFound();
    return value;
  }
}
