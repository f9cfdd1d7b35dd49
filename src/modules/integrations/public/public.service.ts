import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { MailService } from '@/core/mail/mail.service';
import type {
  ContactDto,
  ContactRequestDto,
  ContactRequestQueryDto,
  DemoRequestDto,
  PublicCatalogQueryDto,
  PublicCourseCardDto,
  PublicCourseDto,
  RequestStatus,
} from './dto/public.dto';
import { CONTACT_REQUEST } from './public.mails';
import { type ContactRow, type PublicCardRow, PublicRepository } from './public.repository';

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

/** A strong validator of a JSON answer: the SHA-256 of its exact bytes. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/** The public site (extensions-v2 20): contact and demo forms, the public catalog. */
@Injectable()
export class PublicService {
  private readonly logger = new Logger('Public');

  constructor(
    private readonly repository: PublicRepository,
    private readonly mail: MailService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async contact(dto: ContactDto): Promise<void> {
    if (this.honeypot(dto.website, 'contact')) return;
    const values = {
      name: dto.name,
      email: dto.email,
      topic: dto.topic ?? 'general',
      message: dto.message,
      locale: dto.locale ?? null,
    };
    await this.repository.insertRequest('contact', values, this.clock.now());
    await this.tell('contact', dto.name, dto.email, [`Topic: ${values.topic}`], dto.message);
  }

  async demo(dto: DemoRequestDto): Promise<void> {
    if (this.honeypot(dto.website, 'demo')) return;
    const values = {
      name: dto.name,
      email: dto.email,
      organization_name: dto.organization_name,
      role: dto.role ?? null,
      organization_size: dto.organization_size ?? null,
      country: dto.country ?? null,
      message: dto.message ?? null,
      locale: dto.locale ?? null,
    };
    await this.repository.insertRequest('demo', values, this.clock.now());
    const lines = [
      `Organization: ${dto.organization_name}`,
      ...(dto.role ? [`Role: ${dto.role}`] : []),
      ...(dto.organization_size ? [`Size: ${dto.organization_size}`] : []),
      ...(dto.country ? [`Country: ${dto.country}`] : []),
    ];
    await this.tell('demo', dto.name, dto.email, lines, dto.message ?? null);
  }

  async catalog(query: PublicCatalogQueryDto): Promise<Page<PublicCourseCardDto>> {
    const { rows, total } = await this.repository.catalog(query, query);
    return toPage(
      rows.map((r) => this.card(r)),
      total,
      query,
    );
  }

  async course(slug: string): Promise<PublicCourseDto> {
    const found = /^[a-z0-9-]{3,80}$/.test(slug) ? await this.repository.course(slug) : null;
    if (!found) throw ApiError.notFound('Course not found.');
    return { ...this.card(found.card), description_md: found.card.description_md ?? '', lessons: found.lessons };
  }

  async listRequests(query: ContactRequestQueryDto): Promise<Page<ContactRequestDto>> {
    const { rows, total } = await this.repository.listRequests(query);
    return toPage(
      rows.map((r) => this.request(r)),
      total,
      query,
    );
  }

  async setStatus(id: string, status: RequestStatus): Promise<ContactRequestDto> {
    const row = await this.repository.setStatus(id.toLowerCase(), status, this.clock.now());
    if (!row) throw ApiError.notFound();
    return this.request(row);
  }

  async prune(): Promise<number> {
    return this.repository.prune(this.clock.now());
  }

  /** A filled honeypot: the same answer, nothing stored, a log line to count it. */
  private honeypot(website: string | undefined, kind: string): boolean {
    if (website === undefined || website.trim() === '') return false;
    this.logger.log({ kind }, 'Form honeypot filled: dropped');
    return true;
  }

  private async tell(
    kind: 'contact' | 'demo',
    name: string,
    email: string,
    lines: string[],
    message: string | null,
  ): Promise<void> {
    if (!this.config.contactInbox) return;
    await this.mail.send(
      CONTACT_REQUEST,
      { kind, name, email, lines, message },
      {
        to: this.config.contactInbox,
        locale: 'es',
        organizationId: null,
      },
    );
  }

  private card(r: PublicCardRow): PublicCourseCardDto {
    return {
      id: r.id,
      slug: r.slug,
      title: r.title,
      summary: r.summary,
      language: r.language,
      level: r.level,
      tags: r.tags,
      lessons_count: r.lessons_count,
      estimated_minutes: r.estimated_minutes,
      rating: { average: r.rating_average, count: r.rating_count },
      issues_certificate: r.issues_certificate,
      published_at: iso(r.published_at)!,
    };
  }

  private request(r: ContactRow): ContactRequestDto {
    return { ...r, created_at: iso(r.created_at)!, handled_at: iso(r.handled_at) };
  }
}
