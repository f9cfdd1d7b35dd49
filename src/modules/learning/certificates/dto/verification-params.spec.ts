import type { ArgumentMetadata } from '@nestjs/common';
import { ApiError } from '@/core/http/api-error';
import { createValidationPipe } from '@/core/http/validation';
import { VerificationParamsDto, verificationCodeErrors } from './certificate.dto';

/** The hand check of the public route answers exactly what the global ValidationPipe answered for the DTO. */
describe('verificationCodeErrors', () => {
  const pipe = createValidationPipe();
  const metadata: ArgumentMetadata = { type: 'param', metatype: VerificationParamsDto, data: undefined };
  const viaPipe = async (code: string): Promise<unknown> => {
    try {
      await pipe.transform({ code }, metadata);
      return [];
    } catch (err) {
      const e = err as ApiError;
      return { status: e.status, code: e.code, message: e.message, details: e.details };
    }
  };
  const viaHand = (code: string): unknown => {
    const errors = verificationCodeErrors(code);
    if (!errors.length) return [];
    const e = ApiError.validation(errors);
    return { status: e.status, code: e.code, message: e.message, details: e.details };
  };

  it.each([
    ['empty', ''],
    ['a code', 'CRS-7K2M-Q9XH'],
    ['64 characters', 'A'.repeat(64)],
    ['65 characters', 'A'.repeat(65)],
    ['64 emoji (128 UTF-16 units)', '😀'.repeat(64)],
    ['65 emoji', '😀'.repeat(65)],
    ['64 letters with variation selectors', 'A\uFE0F'.repeat(64)],
    ['spaces and lower case', ' crs-7k2m q9xh '.repeat(5)],
  ])('%s', async (_name, code) => {
    expect(viaHand(code)).toEqual(await viaPipe(code));
  });
});
