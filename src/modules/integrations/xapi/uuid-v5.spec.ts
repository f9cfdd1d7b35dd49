import { URL_NAMESPACE, uuidV5 } from './uuid-v5';

describe('uuidV5 (RFC 9562 5.5)', () => {
  it('matches the RFC test vector and the well-known URL-namespace value', () => {
    // RFC 9562 appendix A.4: "www.example.com" in the DNS namespace.
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
    // Python's uuid.uuid5(uuid.NAMESPACE_URL, 'http://example.com/') (the same algorithm, another implementation).
    expect(uuidV5('http://example.com/', URL_NAMESPACE)).toBe('0a300ee9-f9e4-5697-a51a-efc7fafaba67');
  });

  it('is stable and version 5, variant 10', () => {
    const a = uuidV5('enrollment:1', URL_NAMESPACE);
    expect(uuidV5('enrollment:1', URL_NAMESPACE)).toBe(a);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidV5('enrollment:2', URL_NAMESPACE)).not.toBe(a);
  });
});
