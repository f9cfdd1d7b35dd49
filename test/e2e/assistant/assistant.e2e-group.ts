import { e2eGroup } from '../../support/e2e-group';

e2eGroup(__dirname, ['ai-usage', 'tutor', 'tutor-embedded', 'tutor-quiz-proposals', 'tutor-remote']);
