import { registerDecorator, type ValidationOptions } from 'class-validator';
import { isValidTimeZone } from '@/core/time/local-time';

/** An IANA time-zone name luxon accepts (`Europe/Madrid`, `UTC`), at most 64 characters. */
export function IsTimeZone(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isTimeZone',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `${String(propertyName)} must be an IANA time zone such as Europe/Madrid or UTC`,
        ...options,
      },
      validator: { validate: (value: unknown) => isValidTimeZone(value) },
    });
}
