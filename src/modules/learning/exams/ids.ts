import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';

/** A path id that is not a UUID names nothing: 404, as an unknown one (lower-cased for comparisons). */
export function idOr404(id: string): string {
  if (!isUuid(id)) throw ApiError.notFound();
  return id.toLowerCase();
}
