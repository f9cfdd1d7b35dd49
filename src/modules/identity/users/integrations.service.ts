import { Injectable } from '@nestjs/common';
import { ConnectedApplications } from './connected-applications.port';
import type { IntegrationDto } from './dto/onboarding.dto';

/** `GET /me/integrations`: every kind of integration a person has (connected applications today), newest first. */
@Injectable()
export class IntegrationsService {
  constructor(private readonly applications: ConnectedApplications) {}

  async list(userId: string): Promise<IntegrationDto[]> {
    const items = await this.applications.listIntegrations(userId);
    return items.sort((a, b) => b.created_at.localeCompare(a.created_at));
  }
}
