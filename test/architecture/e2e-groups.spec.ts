import path from 'node:path';
import { groupEntries, groupViolations } from './e2e-groups';

const ROOT = path.join(__dirname, '..', '..');

describe('the e2e groups', () => {
  it('run every e2e spec exactly once, each from a group of its own folder', () => {
    expect(groupViolations(path.join(ROOT, 'test', 'e2e'))).toEqual([]);
  });

  it('refuses the faults of its fixture tree, and only those', () => {
    expect(groupViolations(path.join(ROOT, 'test', 'fixtures', 'e2e-groups', 'e2e'))).toEqual(
      [
        "learning/courses.e2e-group.ts: 'missing' is not a spec of learning/",
        'learning/exams.e2e-spec.ts: in no group (it would never run)',
        'learning/notes.e2e-spec.ts: in 2 groups (learning/courses.e2e-group.ts, learning/more.e2e-group.ts)',
        "practice/practice.e2e-group.ts: '../learning/exams' is not a spec of practice/",
        'stray/alone.e2e-spec.ts: in no group (it would never run)',
      ].sort(),
    );
  });

  it('reads the list of a group file', () => {
    expect(groupEntries("e2eGroup(__dirname, [\n  'a',\n  'b-c',\n]);")).toEqual(['a', 'b-c']);
    expect(groupEntries("describe('x', () => undefined);")).toBeNull();
  });
});
