/** PostgreSQL SQLSTATE codes of the integrity violations services answer in their own words. */
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';

export type ViolationKind = 'unique' | 'foreign_key';

export interface ConstraintViolation {
  readonly kind: ViolationKind;
  /** The constraint's name (`courses_slug_uq`, `cohort_members_user_fk`...), when the driver reports it. */
  readonly constraint: string | null;
  readonly table: string | null;
}

/**
 * The unique or foreign-key violation behind a failed query (TypeORM's QueryFailedError keeps the driver's error),
 * or null for any other error. A service turns a violation it expects into its own ApiError; anything else it
 * rethrows, and the exception filter answers a generic 409 for violations nobody expected.
 */
export function constraintViolation(err: unknown): ConstraintViolation | null {
  const driver = (err as { driverError?: { code?: unknown; constraint?: unknown; table?: unknown } } | null)
    ?.driverError;
  if (!driver) return null;
  const kind =
    driver.code === UNIQUE_VIOLATION ? 'unique' : driver.code === FOREIGN_KEY_VIOLATION ? 'foreign_key' : null;
  if (!kind) return null;
  return {
    kind,
    constraint: typeof driver.constraint === 'string' ? driver.constraint : null,
    table: typeof driver.table === 'string' ? driver.table : null,
  };
}

/** A unique violation, of `constraint` when named. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const violation = constraintViolation(err);
  return violation?.kind === 'unique' && (constraint === undefined || violation.constraint === constraint);
}

/** A foreign-key violation, of a constraint whose name contains `nameContains` when given. */
export function isForeignKeyViolation(err: unknown, nameContains?: string): boolean {
  const violation = constraintViolation(err);
  return (
    violation?.kind === 'foreign_key' &&
    (nameContains === undefined || (violation.constraint?.includes(nameContains) ?? false))
  );
}
