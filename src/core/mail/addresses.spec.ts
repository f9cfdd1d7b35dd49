import { maskEmail } from './addresses';

describe('maskEmail', () => {
  it('keeps the first letter of the local part and host, and the top-level domain', () => {
    expect(maskEmail('ana@example.org')).toBe('a**@e******.org');
    expect(maskEmail('x@y.io')).toBe('*@*.io');
    expect(maskEmail('maria.jose.fernandez@universidad-de-prueba.es')).toBe('m******@u******.es');
  });
});
