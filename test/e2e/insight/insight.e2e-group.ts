import { e2eGroup } from '../../support/e2e-group';

e2eGroup(__dirname, ['reports', 'reports-s3', 'stats', 'telemetry']);
