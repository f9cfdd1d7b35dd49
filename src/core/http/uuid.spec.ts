import { ApiError } from './api-error';
import { isUuid, NOT_UUID_SHAPED, UuidPipe } from './uuid';

describe('UUIDs', () => {
  const id = '123e4567-e89b-12d3-a456-426614174000';

  it('isUuid takes the 8-4-4-4-12 hexadecimal shape in any case, nothing else', () => {
    expect(isUuid(id)).toBe(true);
    expect(isUuid(id.toUpperCase())).toBe(true);
    for (const bad of [`${id}x`, id.slice(1), id.replace(/-/g, ''), `${id.slice(0, 35)}\u0000`, '', 42, null]) {
      expect(isUuid(bad)).toBe(false);
    }
  });

  it('the pipe passes a UUID through unchanged and answers anything else with 404 not_found', () => {
    const pipe = new UuidPipe();
    expect(pipe.transform(id.toUpperCase())).toBe(id.toUpperCase());
    for (const bad of ['latest', ['a'], undefined]) {
      const thrown = (() => {
        try {
          pipe.transform(bad);
          return null;
        } catch (err) {
          return err as ApiError;
        }
      })();
      expect(thrown).toBeInstanceOf(ApiError);
      expect(thrown).toMatchObject({ status: 404, code: 'not_found' });
    }
  });

  it('NOT_UUID_SHAPED refuses exactly the lower-case UUID shape', () => {
    expect(NOT_UUID_SHAPED.test(id)).toBe(false);
    expect(NOT_UUID_SHAPED.test('intro-to-sql')).toBe(true);
    expect(NOT_UUID_SHAPED.test(`${id}-2`)).toBe(true);
  });
});
