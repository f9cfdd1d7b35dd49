import { SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const IS_PUBLIC = Symbol('IS_PUBLIC');

/**
 * Declares access metadata for the guards (read through Reflector on handler and class) and mirrors it as an
 * OpenAPI `x-` extension on every operation it covers, so the description and the access table are generated
 * from the same declaration the guards enforce.
 */
export function accessDecorator(key: symbol, value: unknown, extension: `x-${string}`, extensionValue: unknown) {
  return (target: object, propertyKey?: string | symbol, descriptor?: PropertyDescriptor): void => {
    const extend = ApiExtension(extension, extensionValue);
    if (descriptor && propertyKey !== undefined) {
      SetMetadata(key, value)(target, propertyKey, descriptor);
      extend(target, propertyKey, descriptor);
      return;
    }
    // On a class: metadata on the class for the guards, the extension on each of its operations for the docs.
    SetMetadata(key, value)(target as () => unknown);
    const proto = (target as { prototype: Record<string, unknown> }).prototype;
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (d && typeof d.value === 'function') extend(proto, name, d);
    }
  };
}

/** The operation needs no credential. Everything else is denied without one. */
export const Public = (): MethodDecorator & ClassDecorator => accessDecorator(IS_PUBLIC, true, 'x-public', true);
