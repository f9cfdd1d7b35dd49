import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';
import { AiUsageRepository } from './ai-usage.repository';

/**
 * Metered AI calls (extensions-v2 17.4): exported as the person's rows; on erasure kept with `user_id` null, so the
 * organization's and the platform's totals stay right. The rows hold counts and enums, nothing the person wrote.
 */
@Injectable()
@PersonalData({ area: 'ai_usage', key: 'calls', tables: ['ai_usage'] })
export class AiUsagePersonalData implements PersonalDataHandler {
  constructor(private readonly usage: AiUsageRepository) {}

  export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return this.usage.personRows(userId, db);
  }

  async erase(ctx: EraseContext): Promise<void> {
    await this.usage.forgetPerson(ctx.userId, ctx.tx);
  }
}
