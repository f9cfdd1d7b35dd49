import { e2eGroup } from '../../support/e2e-group';

e2eGroup(__dirname, ['health-metrics', 'operations', 'storage']);
