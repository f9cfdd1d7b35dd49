/**
 * The members area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { PersonDto } from './dto/person.dto';
export { ProfileGamificationDto } from './dto/profile.dto';
export { anonymousPerson, PeopleService } from './people.service';
export { ProfileGamification } from './profile-gamification.port';
