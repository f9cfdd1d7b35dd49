import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';
import { OAuthRepository } from './oauth.repository';

/**
 * OAuth grants to remote tools with their codes, access and refresh tokens, and pending authorization requests
 * (`integrations.json`, extensions-v2 17.4: revoked, then deleted). The export shows each grant and its tokens'
 * lifetimes, never a code or token or their fingerprints. Like a repository, this handler only talks to the
 * database.
 */
@Injectable()
@PersonalData({
  area: 'integrations',
  key: 'oauth_grants',
  tables: [
    'oauth_grants',
    'oauth_codes',
    'oauth_access_tokens',
    'oauth_refresh_tokens',
    'oauth_authorization_requests',
  ],
})
export class OAuthPersonalData implements PersonalDataHandler {
  constructor(private readonly oauth: OAuthRepository) {}

  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query(
      `SELECT g.id, g.client_id, c.client_name, g.organization_id, g.access, g.scope, g.resource, g.created_at,
              g.revoked_at, g.revoked_reason, g.shared_since, g.publishing_enabled,
              COALESCE((SELECT json_agg(json_build_object('created_at', t.created_at, 'expires_at', t.expires_at,
                         'revoked_at', t.revoked_at) ORDER BY t.created_at)
                        FROM oauth_access_tokens t WHERE t.grant_id = g.id), '[]'::json) AS access_tokens
       FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
       WHERE g.user_id = $1 ORDER BY g.created_at, g.id`,
      [userId],
    );
  }

  /**
   * Every live grant is revoked with its codes and tokens (the access-token cache is dropped on every instance),
   * then the grants go, and with them their codes and tokens; pending authorization requests are deleted.
   */
  async erase({ userId, now, tx }: EraseContext): Promise<void> {
    const live = await tx.manager.query<{ id: string }[]>(
      `SELECT id FROM oauth_grants WHERE user_id = $1 AND revoked_at IS NULL`,
      [userId],
    );
    for (const { id } of live) await this.oauth.revokeGrant(id, 'account_erased', now, tx, userId);
    await tx.manager.query(`DELETE FROM oauth_access_tokens WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM oauth_grants WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM oauth_authorization_requests WHERE user_id = $1`, [userId]);
  }
}
