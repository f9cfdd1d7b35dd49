import { IsInt, IsOptional, IsString, Min, ValidateNested, validate } from 'class-validator';
import { Type } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import { memoizeValidationMetadata } from './validation';

class Inner {
  @IsInt()
  @Min(1)
  n!: number;
}

class Outer {
  @IsString()
  name!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => Inner)
  inner?: Inner;
}

const of = <T extends object>(cls: new () => T, values: Partial<T>): T => Object.assign(new cls(), values);

describe('memoizeValidationMetadata', () => {
  beforeAll(() => memoizeValidationMetadata());

  it('answers the same rules as before, nested ones included, on every call', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await validate(of(Outer, { name: 'a', inner: of(Inner, { n: 2 }) }))).toEqual([]);
      const errors = await validate(of(Outer, { name: 3 as unknown as string, inner: of(Inner, { n: 0 }) }));
      expect(errors.map((e) => e.property).sort()).toEqual(['inner', 'name']);
      expect(errors.find((e) => e.property === 'inner')?.children?.[0]?.constraints).toHaveProperty('min');
    }
  });

  it('is installed once, and sees rules added after it (a class loaded later)', async () => {
    memoizeValidationMetadata();
    const storage = getMetadataStorage();
    const before = storage.getTargetValidationMetadatas(Outer, '', false, false);
    expect(storage.getTargetValidationMetadatas(Outer, '', false, false)).toBe(before);

    class Later extends Outer {
      @IsInt()
      count!: number;
    }
    expect((await validate(of(Later, { name: 'a', count: 'x' as unknown as number }))).map((e) => e.property)).toEqual([
      'count',
    ]);
    // Adding Later's rule forgot what was remembered: Outer's rules are looked up afresh (and are the same).
    const after = storage.getTargetValidationMetadatas(Outer, '', false, false);
    expect(after).not.toBe(before);
    expect(after).toEqual(before);
  });
});
