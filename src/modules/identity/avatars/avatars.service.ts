import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Avatar } from '@dicebear/core';
import { LRUCache } from 'lru-cache';
import type { Credential } from '@/core/auth/credential';
import { ApiError } from '@/core/http/api-error';
import { type AvatarChoice, UsersService } from '@/modules/identity/users';
import { AvatarSanitizer } from './avatar-sanitizer';
import { type AvatarCatalog, type AvatarOptionsInput, AvatarStyle } from './avatar-style';
import { AvatarVisibility } from './avatar-visibility';

/** A finished avatar: the exact bytes served and their strong validator. */
export interface RenderedAvatar {
  readonly svg: Buffer;
  /** Quoted, strong: a SHA-256 of exactly these bytes. */
  readonly etag: string;
}

export interface SavedAvatar {
  avatar: AvatarChoice;
  avatar_svg_url: string;
}

/** Rendered avatars kept in memory; a hit skips rendering and sanitizing (about 4 ms together). */
const RENDER_CACHE_SIZE = 2000;

@Injectable()
export class AvatarsService {
  // The output is a pure function of the normalized choice, so a per-process memo never needs invalidating
  // and every instance answers the same bytes (and ETag) for the same choice.
  private readonly rendered = new LRUCache<string, RenderedAvatar>({ max: RENDER_CACHE_SIZE });

  constructor(
    private readonly style: AvatarStyle,
    private readonly sanitizer: AvatarSanitizer,
    private readonly visibility: AvatarVisibility,
    private readonly users: UsersService,
  ) {}

  catalog(): AvatarCatalog {
    return this.style.catalog;
  }

  /** Renders a choice without saving it; 422 for anything the style does not offer. */
  preview(input: AvatarOptionsInput): RenderedAvatar {
    return this.render(this.validChoice(input));
  }

  /**
   * The person's generated avatar (their saved choice, else one decided by their id), whether or not they
   * also have a photo. 404 when it does not exist or the viewer may not see it, so neither is revealed.
   */
  async forUser(viewer: Credential, userId: string): Promise<RenderedAvatar> {
    if (!(await this.visibility.canSee(viewer, userId))) throw ApiError.notFound();
    const user = await this.users.findById(userId);
    if (!user) throw ApiError.notFound();
    return this.render(this.style.normalizeSaved(user.avatar ?? bare(user.id)));
  }

  /** Saves the choice; answers it in normal form with the avatar address that changes with it. */
  async save(userId: string, input: AvatarOptionsInput): Promise<SavedAvatar> {
    const choice = this.validChoice(input);
    await this.users.saveAvatar(userId, choice);
    // The address comes from the same place as the account's, so both carry the same version.
    const { avatar_svg_url } = this.users.toDto(await this.users.getById(userId));
    return { avatar: choice, avatar_svg_url };
  }

  private validChoice(input: AvatarOptionsInput): AvatarChoice {
    const result = this.style.normalize(input);
    if ('errors' in result) throw ApiError.validation(result.errors);
    return result.choice;
  }

  private render(choice: AvatarChoice): RenderedAvatar {
    const key = JSON.stringify(choice);
    const hit = this.rendered.get(key);
    if (hit) return hit;
    const raw = new Avatar(this.style.style, this.style.toDiceBearOptions(choice)).toString();
    const svg = Buffer.from(this.sanitizer.sanitize(raw), 'utf8');
    const rendered = { svg, etag: `"${createHash('sha256').update(svg).digest('base64url')}"` };
    this.rendered.set(key, rendered);
    return rendered;
  }
}

/** The choice of someone who never chose: their id seeds everything. */
function bare(seed: string): AvatarChoice {
  return {
    seed,
    head: null,
    expression: null,
    facial_hair: null,
    accessories: null,
    mask: null,
    skin_color: null,
    hair_color: null,
    clothing_color: null,
    background: null,
  };
}
