import { e2eGroup } from '../../support/e2e-group';

// Courses and what a learner does in them: catalog, editor, search, progress, notes, paths, teachers, deadlines.
e2eGroup(__dirname, [
  'courses',
  'courses-http',
  'courses-ratings',
  'editor',
  'search',
  'progress',
  'notes',
  'paths',
  'paths-delete',
  'teacher',
  'teacher-student',
  'deadlines',
]);
