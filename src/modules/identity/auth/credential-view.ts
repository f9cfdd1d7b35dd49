import { Injectable } from '@nestjs/common';
import type { Credential } from '@/core/auth/credential';
import { TenancyResolver } from '@/core/auth/tenancy';
import type { CredentialDto } from './dto/auth.dto';

/** `GET /auth/credential`: what the current credential is and, for a bearer token, where and how it acts. */
@Injectable()
export class CredentialView {
  /** The token's role comes from the organizations area, through the core's tenancy port. */
  constructor(private readonly tenancy: TenancyResolver) {}

  async describe(credential: Credential): Promise<CredentialDto> {
    if (credential.kind === 'session' || !credential.organizationId) {
      return { kind: credential.kind, user_id: credential.userId, organization_id: null, role: null, access: null };
    }
    const role = (await this.tenancy.membership(credential.organizationId, credential.userId))?.role ?? null;
    return {
      kind: credential.kind,
      user_id: credential.userId,
      organization_id: credential.organizationId,
      role,
      access: credential.access,
    };
  }
}
