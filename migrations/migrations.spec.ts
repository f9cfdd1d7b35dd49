import { readdirSync } from 'node:fs';
import { migrationFileName } from '@/core/build-info';
import { MIGRATIONS } from './index';

describe('migration chain', () => {
  const files = readdirSync(__dirname)
    .filter((f) => /^\d{13}-.+\.ts$/.test(f))
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();

  it('lists every migration file, in timestamp order', () => {
    expect(MIGRATIONS.map((m) => migrationFileName(m.name))).toEqual(files);
  });

  it('names each class <Name><timestamp> after its file <timestamp>-<Name>', () => {
    for (const m of MIGRATIONS) {
      const instance = new m();
      expect(instance.name).toBe(m.name);
    }
  });
});
