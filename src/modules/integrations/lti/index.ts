/**
 * The lti area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { LearnerLessonLtiDto, LessonLtiDto, LessonLtiInputDto } from './dto/lti.dto';
export { LtiKeysService } from './lti-keys.service';
export { LtiToolsService } from './lti-tools.service';
