import { QueryFailedError } from 'typeorm';
import { constraintViolation, isForeignKeyViolation, isUniqueViolation } from './constraint-violation';

const failed = (driverError: Record<string, unknown>): QueryFailedError =>
  new QueryFailedError('INSERT ...', [], Object.assign(new Error('violation'), driverError));

describe('constraintViolation', () => {
  it('reads unique and foreign-key violations with their constraint and table', () => {
    const unique = failed({ code: '23505', constraint: 'courses_slug_uq', table: 'courses' });
    expect(constraintViolation(unique)).toEqual({ kind: 'unique', constraint: 'courses_slug_uq', table: 'courses' });
    expect(isUniqueViolation(unique)).toBe(true);
    expect(isUniqueViolation(unique, 'courses_slug_uq')).toBe(true);
    expect(isUniqueViolation(unique, 'learning_paths_slug_uq')).toBe(false);
    expect(isForeignKeyViolation(unique)).toBe(false);

    const fk = failed({ code: '23503', constraint: 'cohort_members_user_fk' });
    expect(constraintViolation(fk)).toEqual({ kind: 'foreign_key', constraint: 'cohort_members_user_fk', table: null });
    expect(isForeignKeyViolation(fk)).toBe(true);
    expect(isForeignKeyViolation(fk, 'user')).toBe(true);
    expect(isForeignKeyViolation(fk, 'institute')).toBe(false);
  });

  it('is null for other database errors and for anything that is not one', () => {
    expect(constraintViolation(failed({ code: '22P02' }))).toBeNull();
    expect(constraintViolation(new Error('boom'))).toBeNull();
    expect(constraintViolation(null)).toBeNull();
    expect(constraintViolation(undefined)).toBeNull();
    expect(isUniqueViolation('23505')).toBe(false);
  });
});
