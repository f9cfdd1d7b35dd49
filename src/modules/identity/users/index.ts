/**
 * The users area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { ConnectedApplications } from './connected-applications.port';
export { IntegrationDto } from './dto/onboarding.dto';
export { UserDto } from './dto/user.dto';
export { normalizeEmail, PRIVACY_POLICY_VERSION, TERMS_VERSION, UsersService } from './users.service';
export type { AvatarChoice, User } from './users.types';
