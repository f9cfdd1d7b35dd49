import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SignJWT } from 'jose';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { Credential } from '@/core/auth/credential';
import { CryptoService } from '@/core/crypto/crypto.service';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { CertificatesService } from '@/modules/learning/certificates';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import {
  type AchievementDto,
  type CredentialStatusDto,
  type IssuerProfileDto,
  type JwksDto,
  OB_CONTEXT,
  type OpenBadgeCredentialDto,
} from './dto/open-badge.dto';
import { ObKey } from './ob-key';
import { type AchievementRow, OpenBadgesRepository } from './open-badges.repository';

type OwnCertificate = Awaited<ReturnType<CertificatesService['ownCertificate']>>;

const NARRATIVE = {
  course: {
    es: (t: string) => `Completar todas las lecciones del curso «${t}» y, si las tiene, sus evaluaciones obligatorias.`,
    en: (t: string) => `Complete every lesson of the course “${t}” and, when it has them, its required exams.`,
  },
  program: {
    es: (t: string) => `Completar todos los cursos del programa «${t}» y, si lo tiene, su proyecto final.`,
    en: (t: string) => `Complete every course of the program “${t}” and, when it has one, its capstone project.`,
  },
} as const;

/**
 * Open Badges 3.0 (extensions-v2 25.5): every certificate as an OpenBadgeCredential (W3C VC Data Model 2.0), signed
 * as a JWT VC (`alg: EdDSA`, `typ: vc+jwt`, `kid`) with `jose`; the issuer profiles, achievements, the public JWK
 * set and the status of a credential, all public. The subject is identified by a salted SHA-256 of the holder's
 * email, never by name, so an erased holder leaves nothing in the credential.
 */
@Injectable()
export class OpenBadgesService {
  constructor(
    private readonly key: ObKey,
    private readonly repository: OpenBadgesRepository,
    private readonly certificates: CertificatesService,
    private readonly organizations: OrganizationsService,
    private readonly crypto: CryptoService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The caller's certificate as the signed JWT or the credential object. */
  async mine(
    credential: Credential,
    certificateId: string,
    format: 'jwt' | 'json',
  ): Promise<string | OpenBadgeCredentialDto> {
    this.requireEnabled();
    if (!isUuid(certificateId)) throw ApiError.notFound();
    const certificate = await this.certificates.ownCertificate(credential, certificateId.toLowerCase());
    const vc = await this.credential(certificate);
    return format === 'json' ? vc : this.sign(vc, certificate);
  }

  async issuer(organizationId: string): Promise<IssuerProfileDto> {
    this.requireEnabled();
    const organization = isUuid(organizationId)
      ? await this.organizations.findById(organizationId.toLowerCase())
      : null;
    // Only an organization that issued a credential still standing has a public issuer profile (v3 6.11).
    if (!organization || !(await this.repository.hasIssuedCredential(organization.id))) throw ApiError.notFound();
    return {
      '@context': OB_CONTEXT,
      id: this.issuerId(organization.id),
      type: ['Profile'],
      name: organization.name,
      url: this.config.webUrl,
      ...(organization.logoUrl ? { image: organization.logoUrl } : {}),
    };
  }

  async achievement(achievementId: string): Promise<AchievementDto> {
    this.requireEnabled();
    const row = isUuid(achievementId) ? await this.repository.achievement(achievementId.toLowerCase()) : null;
    if (!row) throw ApiError.notFound();
    return { '@context': OB_CONTEXT, ...this.achievementOf(row) };
  }

  async jwks(): Promise<JwksDto> {
    this.requireEnabled();
    const jwk = await this.key.jwk();
    return { keys: [{ kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, kid: jwk.kid, alg: 'EdDSA', use: 'sig' }] };
  }

  async status(certificateId: string): Promise<CredentialStatusDto> {
    this.requireEnabled();
    const row = isUuid(certificateId) ? await this.repository.certificateStatus(certificateId.toLowerCase()) : null;
    if (!row) throw ApiError.notFound();
    return {
      revoked: row.status === 'revoked',
      replaced_by: row.status === 'replaced' ? row.replaced_by_code : null,
    };
  }

  // Helpers.

  private requireEnabled(): void {
    if (!this.key.enabled) throw ApiError.notFound('Open Badges are switched off here.', 'feature_disabled');
  }

  private issuerId(organizationId: string): string {
    return `${this.config.baseUrl}/api/v1/public/ob/issuers/${organizationId}`;
  }

  private achievementOf(row: AchievementRow): Omit<AchievementDto, '@context'> {
    const language = row.language ?? 'es';
    return {
      id: `${this.config.baseUrl}/api/v1/public/ob/achievements/${row.id}`,
      type: ['Achievement'],
      name: row.title,
      description: row.description || row.title,
      criteria: { narrative: NARRATIVE[row.kind][language](row.title) },
    };
  }

  private async credential(c: OwnCertificate): Promise<OpenBadgeCredentialDto> {
    const [organization, achievement, email] = await Promise.all([
      this.organizations.getById(c.organization_id),
      this.repository.achievementOfCertificate(c.course_id, c.path_id),
      this.repository.holderEmail(c.user_id),
    ]);
    if (!achievement || !email) throw ApiError.notFound();
    // A salt of its own per credential, stable (the same credential every time it is fetched), not guessable.
    const salt = this.crypto.keyedHash('ob-identity-salt', c.id).slice(0, 32);
    const identityHash = `sha256$${createHash('sha256')
      .update(email + salt)
      .digest('hex')}`;
    return {
      '@context': OB_CONTEXT,
      id: `urn:uuid:${c.id}`,
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
      issuer: { id: this.issuerId(organization.id), type: ['Profile'], name: organization.name },
      validFrom: c.issued_at.toISOString(),
      name: c.title,
      credentialSubject: {
        type: ['AchievementSubject'],
        identifier: [{ type: 'IdentityObject', identityHash, identityType: 'emailAddress', hashed: true, salt }],
        achievement: this.achievementOf(achievement),
      },
      credentialStatus: {
        id: `${this.config.baseUrl}/api/v1/public/certificates/verify/${encodeURIComponent(c.code)}`,
        type: '1EdTechRevocationList',
      },
    };
  }

  private async sign(vc: OpenBadgeCredentialDto, c: OwnCertificate): Promise<string> {
    const { kid } = await this.key.jwk();
    const issued = Math.floor(c.issued_at.getTime() / 1000);
    return new SignJWT({ vc: vc as unknown as Record<string, unknown> })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'vc+jwt' })
      .setIssuer(vc.issuer.id)
      .setSubject(vc.id)
      .setJti(vc.id)
      .setNotBefore(issued)
      .setIssuedAt(issued)
      .sign(this.key.signingKey);
  }
}
