import { classifyEmailEvent, parseEmailEvent, recipientsOf, storedType } from './email-events';

const body = (value: unknown): Buffer => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

describe('email-provider events (extensions-v2 22.2)', () => {
  it('parses a JSON object with a string type, and nothing else', () => {
    expect(parseEmailEvent(body({ type: 'email.sent', data: { to: 'a@b.org' } }))).toEqual({
      type: 'email.sent',
      data: { to: 'a@b.org' },
    });
    expect(parseEmailEvent(body('{not json'))).toBe('not_json');
    expect(parseEmailEvent(body(''))).toBe('not_json');
    for (const value of ['[]', '"email.sent"', 'null', '{}', '{"type":3}', '{"type":""}', '{"type":null}']) {
      expect(parseEmailEvent(body(value))).toBe('no_type');
    }
  });

  it.each([
    [undefined, 'hard_bounce'],
    [null, 'hard_bounce'],
    ['Permanent', 'hard_bounce'],
    ['permanent', 'hard_bounce'],
    ['HARD', 'hard_bounce'],
    ['hard', 'hard_bounce'],
  ])('a bounce of type %p suppresses as a hard bounce', (type, reason) => {
    const bounce = type === undefined ? {} : { type, subType: 'General' };
    expect(classifyEmailEvent({ type: 'email.bounced', data: { to: ['Ana@Example.org'], bounce } })).toEqual({
      outcome: 'processed',
      reason,
      addresses: ['ana@example.org'],
    });
  });

  it('a bounce without a bounce object is hard', () => {
    expect(classifyEmailEvent({ type: 'email.bounced', data: { to: 'ana@example.org' } })).toMatchObject({
      outcome: 'processed',
      reason: 'hard_bounce',
    });
  });

  it.each(['Transient', 'transient', 'soft', 'SOFT', 'Undetermined'])('a %s bounce is only counted', (type) => {
    expect(classifyEmailEvent({ type: 'email.bounced', data: { to: 'a@example.org', bounce: { type } } })).toEqual({
      outcome: 'ignored',
      why: 'soft_bounce',
    });
  });

  it('an unknown bounce type is not guessed to be hard', () => {
    for (const type of ['Suppressed', 7, true, {}]) {
      expect(classifyEmailEvent({ type: 'email.bounced', data: { to: 'a@example.org', bounce: { type } } })).toEqual({
        outcome: 'ignored',
        why: 'unknown_bounce_type',
      });
    }
  });

  it('a complaint suppresses every recipient as a complaint', () => {
    expect(
      classifyEmailEvent({
        type: 'email.complained',
        data: { to: ['a@example.org', 'B@example.org', 'a@example.org'] },
      }),
    ).toEqual({ outcome: 'processed', reason: 'complaint', addresses: ['a@example.org', 'b@example.org'] });
  });

  it.each(['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.opened', 'email.clicked', 'email.x'])(
    '%s changes nothing',
    (type) => {
      expect(classifyEmailEvent({ type, data: { to: 'a@example.org' } })).toEqual({
        outcome: 'ignored',
        why: 'not_applicable',
      });
    },
  );

  it('an event that names no valid recipient is ignored', () => {
    for (const data of [undefined, null, {}, { to: [] }, { to: 'nobody' }, { to: [1, null] }, 'text']) {
      expect(classifyEmailEvent({ type: 'email.complained', data })).toEqual({
        outcome: 'ignored',
        why: 'no_recipient',
      });
    }
  });

  it('reads at most 50 recipients', () => {
    const to = Array.from({ length: 60 }, (_, i) => `p${i}@example.org`);
    expect(recipientsOf({ to })).toHaveLength(50);
  });

  it('stores types bounded and without control characters', () => {
    expect(storedType('email.sent')).toBe('email.sent');
    expect(storedType('a\u0000b\nc')).toBe('abc');
    expect(storedType('x'.repeat(300))).toHaveLength(100);
    expect(storedType('\u0000')).toBe('(none)');
  });
});
