import type { IntegrationDto } from './dto/onboarding.dto';

/**
 * The person's connected applications (OAuth grants to remote tools), listed among their integrations. The OAuth
 * area owns them and depends on this area, so it provides this port (in a global module) instead of this area
 * depending on it.
 */
export abstract class ConnectedApplications {
  abstract listIntegrations(userId: string): Promise<IntegrationDto[]>;
}
