import path from 'node:path';
import { vocabularyViolation, vocabularyViolations } from './area-vocabulary';

const ROOT = path.join(__dirname, '..', '..');

describe('the file vocabulary of the areas', () => {
  it('holds for every file under src/modules', () => {
    expect(vocabularyViolations(path.join(ROOT, 'src', 'modules'))).toEqual([]);
  });

  it('refuses the bad names of its fixture tree, and only those', () => {
    const found = vocabularyViolations(path.join(ROOT, 'test', 'fixtures', 'area-vocabulary', 'modules'));
    expect(found.map((line) => line.split(':')[0]).sort()).toEqual(
      [
        'learning/lessons/lessons.definitions.ts',
        'learning/lessons/lesson.subscriber.ts',
        'learning/lessons/lesson-jobs.ts',
        'learning/lessons/lessons.rate-limits.ts',
        'learning/lessons/lessons.dto.ts',
        'learning/lessons/grading.limits.ts',
        'learning/lessons/Lesson_Rules.ts',
        'learning/lessons/dto/lesson-view.ts',
        'learning/stray.ts',
      ].sort(),
    );
  });

  it.each([
    ['learning/exams/exams.controller.ts', null],
    ['learning/exams/exam-sessions.service.ts', null],
    ['learning/exams/exams-handlers.jobs.ts', null],
    ['learning/exams/exam-rules.spec.ts', null],
    ['learning/exams/dto/exam.dto.ts', null],
    ['learning/exams/index.ts', null],
    ['identity/users/entities/user.entity.ts', null],
    ['learning/exams/sub/index.ts', 'at its top'],
    ['learning/exams/exam-jobs.ts', 'a kind hidden'],
    ['learning/exams/exam-jobs.definitions.ts', 'not a kind'],
    ['learning/exams/exams.jobs.definitions.ts', 'too many dotted parts'],
    ['learning/exams/exam.processor.ts', 'not a kind'],
    ['learning/exams/sessions.subscribers.ts', 'named exams.subscribers.ts'],
    ['identity/users/user.entity.ts', 'entities live in entities/'],
  ])('%s', (file, expected) => {
    const why = vocabularyViolation(file);
    if (expected === null) expect(why).toBeNull();
    else expect(why).toContain(expected);
  });
});
