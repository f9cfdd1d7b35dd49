import { Injectable } from '@nestjs/common';
import type { Membership } from '@/core/auth/tenancy';
import { MINOR_AGE_BRACKET } from '@/core/auth/credential';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { UsersService, type User } from '@/modules/identity/users';
import type { PersonDto } from './dto/person.dto';

export type { PersonDto } from './dto/person.dto';

/** The hidden person of extensions-v2 2.2: carries no id. */
export function anonymousPerson(): PersonDto {
  return { user_id: null, username: null, name: null, avatar_svg_url: null, anonymous: true };
}

/**
 * How colleagues appear to each other (extensions-v2 2.2), for every area that shows people (leaderboards,
 * feeds, comments, ratings, duels, challenges). A person is visible to the viewer when the viewer is that person;
 * or the person has `public_profile` on and is not a minor (17.6); or the viewer is owner/admin of the
 * organization; or the viewer teaches a cohort of the organization in which the person is a student. Anyone else
 * is the anonymous person. Callers pass people of the viewer's organization (members of a leaderboard, authors
 * of its feed): the rule does not re-check membership. One query for the accounts and, for a teacher, one for the cohorts, whatever the count.
 */
@Injectable()
export class PeopleService {
  constructor(
    private readonly users: UsersService,
    private readonly cohorts: CohortsService,
  ) {}

  /** The persons of `userIds` as `viewer` sees them, by user id (every id present; unknown ids anonymous). */
  async asSeenBy(viewer: Membership, userIds: readonly string[]): Promise<Map<string, PersonDto>> {
    const ids = [...new Set(userIds)];
    const out = new Map<string, PersonDto>();
    if (ids.length === 0) return out;
    const staff = viewer.role === 'owner' || viewer.role === 'admin';
    const users = await this.users.findByIds(ids);
    const needTeacherCheck =
      !staff && viewer.role === 'teacher'
        ? users.filter((u) => u.id !== viewer.userId && !publiclyVisible(u)).map((u) => u.id)
        : [];
    const taught =
      needTeacherCheck.length > 0
        ? new Set(await this.cohorts.studentsAmongTaughtBy(viewer.organizationId, viewer.userId, needTeacherCheck))
        : new Set<string>();
    for (const user of users) {
      const visible = staff || user.id === viewer.userId || publiclyVisible(user) || taught.has(user.id);
      out.set(user.id, visible ? this.person(user) : anonymousPerson());
    }
    for (const id of ids) if (!out.has(id)) out.set(id, anonymousPerson());
    return out;
  }

  /** One person as `viewer` sees them. */
  async oneAsSeenBy(viewer: Membership, userId: string): Promise<PersonDto> {
    return (await this.asSeenBy(viewer, [userId])).get(userId) ?? anonymousPerson();
  }

  /**
   * The persons of `userIds` without the visibility rule: for contexts where the viewer is entitled to see them
   * whatever their profile says (staff reviewing work they oversee, the other player of one's own duel).
   */
  async named(userIds: readonly string[]): Promise<Map<string, PersonDto>> {
    const ids = [...new Set(userIds)];
    const out = new Map<string, PersonDto>();
    if (ids.length === 0) return out;
    for (const user of await this.users.findByIds(ids)) out.set(user.id, this.person(user));
    for (const id of ids) if (!out.has(id)) out.set(id, anonymousPerson());
    return out;
  }

  private person(user: User): PersonDto {
    return {
      user_id: user.id,
      username: user.username,
      name: user.name,
      avatar_svg_url: this.users.avatarSvgUrl(user),
      anonymous: false,
    };
  }
}

function publiclyVisible(user: User): boolean {
  return user.publicProfile && user.ageBracket !== MINOR_AGE_BRACKET;
}
