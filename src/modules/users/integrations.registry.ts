import { Injectable } from '@nestjs/common';
import type { IntegrationDto } from './dto/onboarding.dto';

/** A kind of integration a person can have (OAuth grants to remote tools, for one); each area adds its own. */
export interface IntegrationSource {
  readonly kind: string;
  list(userId: string): Promise<IntegrationDto[]>;
  /** Revokes the integration if it is this person's; false when there is no such integration. */
  revoke(userId: string, integrationId: string): Promise<boolean>;
}

/**
 * Collects the integration sources of the areas that have them, so `/me/integrations` lists them all without
 * the users area depending on those areas.
 */
@Injectable()
export class IntegrationsRegistry {
  private readonly sources: IntegrationSource[] = [];

  register(source: IntegrationSource): void {
    this.sources.push(source);
  }

  async list(userId: string): Promise<IntegrationDto[]> {
    const lists = await Promise.all(this.sources.map((s) => s.list(userId)));
    return lists.flat().sort((a, b) => b.created_at.localeCompare(a.created_at));
  }

  async revoke(userId: string, integrationId: string): Promise<boolean> {
    for (const source of this.sources) if (await source.revoke(userId, integrationId)) return true;
    return false;
  }
}
