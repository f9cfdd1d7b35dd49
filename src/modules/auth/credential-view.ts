import { Injectable } from '@nestjs/common';
import type { Credential } from '@/core/auth/credential';
import type { CredentialDto } from './dto/auth.dto';

/** Looks up the person's role in an organization (provided by the organizations area). */
export type RoleLookup = (userId: string, organizationId: string) => Promise<string | null>;

/** `GET /auth/credential`: what the current credential is and, for a bearer token, where and how it acts. */
@Injectable()
export class CredentialView {
  private roleLookup: RoleLookup | null = null;

  useRoleLookup(lookup: RoleLookup): void {
    this.roleLookup = lookup;
  }

  async describe(credential: Credential): Promise<CredentialDto> {
    if (credential.kind === 'session' || !credential.organizationId) {
      return { kind: credential.kind, user_id: credential.userId, organization_id: null, role: null, access: null };
    }
    const role = this.roleLookup ? await this.roleLookup(credential.userId, credential.organizationId) : null;
    return {
      kind: credential.kind,
      user_id: credential.userId,
      organization_id: credential.organizationId,
      role,
      access: credential.access,
    };
  }
}
