import { e2eGroup } from '../../support/e2e-group';

e2eGroup(__dirname, ['lti', 'lti-disabled', 'open-badges', 'public', 'webhooks', 'xapi']);
