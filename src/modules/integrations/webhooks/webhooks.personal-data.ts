import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * Webhook endpoints the person created as an owner or admin (`organizations.json`): the organization's
 * integration, so on erasure they stay and lose their creator (as other records of the organization do). The URL is
 * exported; the secret never is.
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'webhook_endpoints_created', tables: ['webhook_endpoints'] })
export class WebhookEndpointsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT id, organization_id, url, events, enabled, created_at FROM webhook_endpoints
       WHERE created_by = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE webhook_endpoints SET created_by = NULL WHERE created_by = $1`, [userId]);
  }
}

/**
 * Deliveries whose event names the person (`data.user_id`: their enrollment, completion, certificate, exam or
 * membership), kept 30 days (`organizations.json`). On erasure they are deleted: pending attempts stop, and the
 * integrator's own copy is theirs to erase.
 */
@Injectable()
@PersonalData({ area: 'organizations', key: 'webhook_deliveries', tables: ['webhook_deliveries'] })
export class WebhookDeliveriesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT d.id, d.organization_id, d.endpoint_id, d.event_id, d.event_type, d.occurred_at, d.data, d.status,
         d.attempts, d.created_at
       FROM webhook_deliveries d
       WHERE d.data ? 'user_id' AND d.data ->> 'user_id' = $1 ORDER BY d.created_at, d.id`,
      [userId],
    );
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM webhook_deliveries WHERE data ? 'user_id' AND data ->> 'user_id' = $1`, [
      userId,
    ]);
  }
}
