import { e2eGroup } from '../../support/e2e-group';

// Exams and certificates.
e2eGroup(__dirname, [
  'exams',
  'exams-sessions',
  'exams-deadlines',
  'exams-restart',
  'certificates',
  'certificates-pdf',
  'certificates-template-admin',
  'certificates-export',
  'certificates-export-bytes',
]);
