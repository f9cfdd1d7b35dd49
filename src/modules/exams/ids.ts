import { ApiError } from '@/core/http/api-error';
import { UUID_RE } from '@/modules/courses/catalog-sql';

/** A path id that is not a UUID names nothing: 404, as an unknown one. */
export function idOr404(id: string): string {
  if (!UUID_RE.test(id)) throw ApiError.notFound();
  return id.toLowerCase();
}

function driverCode(err: unknown): string | undefined {
  return (err as { driverError?: { code?: string } }).driverError?.code;
}

export function isForeignKeyViolation(err: unknown): boolean {
  return driverCode(err) === '23503';
}

export function isUniqueViolation(err: unknown): boolean {
  return driverCode(err) === '23505';
}
