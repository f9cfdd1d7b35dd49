import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { AiUsageFigures } from '@/modules/tenancy/organizations';
import { AiUsageRepository } from './ai-usage.repository';
import { utcMonth } from './quota-windows';

/**
 * The organizations area's `AiUsageFigures` port. On the repository alone: AiUsageService depends on
 * OrganizationsService, which injects this port, so the port must not depend on that service.
 */
@Injectable()
export class AiUsageFiguresOfMetering extends AiUsageFigures {
  constructor(
    private readonly usage: AiUsageRepository,
    private readonly clock: Clock,
  ) {
    super();
  }

  async month(organizationId: string): Promise<{ requests: number; tokens: number }> {
    const spent = await this.usage.organizationTotals(organizationId, utcMonth(this.clock.now()));
    return { requests: spent.requests, tokens: spent.input_tokens + spent.output_tokens };
  }
}
