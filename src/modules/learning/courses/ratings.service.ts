import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import type { Membership } from '@/core/auth/tenancy';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { PeopleService } from '@/modules/tenancy/members';
import { CatalogService } from './catalog.service';
import type { CourseRatingDto, MyRatingDto, RatingListQueryDto } from './dto/ratings.dto';
import { LearnerState } from './learner-state.port';
import { type OrgRatingRow, RatingsRepository } from './ratings.repository';

/**
 * Ratings as lists and their moderation (extensions-v2 4). Comments are shown only inside the organization they
 * were written in; the course card's average keeps counting every organization's stars.
 */
@Injectable()
export class RatingsService {
  constructor(
    private readonly ratings: RatingsRepository,
    private readonly catalog: CatalogService,
    private readonly learners: LearnerState,
    private readonly people: PeopleService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
  ) {}

  private async courseId(member: Membership, idOrSlug: string): Promise<string> {
    const reachable = await this.catalog.reachable(member.organizationId, idOrSlug, (courseId) =>
      this.learners.enrollmentRecord(member.organizationId, member.userId, courseId),
    );
    if (!reachable) throw ApiError.notFound();
    return reachable.course.id;
  }

  async list(member: Membership, idOrSlug: string, query: RatingListQueryDto): Promise<Page<CourseRatingDto>> {
    const courseId = await this.courseId(member, idOrSlug);
    const { rows, total } = await this.ratings.page(
      member.organizationId,
      courseId,
      { stars: query.stars, withComment: query.with_comment },
      query.limit,
      query.offset,
    );
    const persons = await this.people.asSeenBy(
      member,
      rows.map((r) => r.user_id),
    );
    return toPage(
      rows.map((r) => this.toDto(member, r, persons.get(r.user_id)!)),
      total,
      query,
    );
  }

  async withdraw(member: Membership, idOrSlug: string): Promise<void> {
    const courseId = await this.courseId(member, idOrSlug);
    const removed = await this.transactions.run((tx) => this.ratings.withdraw(member.userId, courseId, tx));
    if (!removed) throw ApiError.notFound();
  }

  async removeComment(
    member: Membership,
    idOrSlug: string,
    userId: string,
    reason: string,
    ip: string | undefined,
  ): Promise<CourseRatingDto> {
    const courseId = await this.courseId(member, idOrSlug);
    const row = await this.transactions.run(async (tx) => {
      const updated = await this.ratings.removeComment(member.organizationId, courseId, userId, tx);
      if (!updated) throw ApiError.notFound();
      await this.audit.record(
        {
          action: 'rating.comment_removed',
          actorId: member.userId,
          organizationId: member.organizationId,
          targetType: 'course',
          targetId: courseId,
          ip,
          metadata: { course_id: courseId, user_id: userId, reason },
        },
        tx,
      );
      return updated;
    });
    return this.toDto(member, row, await this.people.oneAsSeenBy(member, row.user_id));
  }

  async mine(credential: Credential, limit: number, offset: number): Promise<Page<MyRatingDto>> {
    const { rows, total } = await this.ratings.mine(credential.userId, credential.organizationId, limit, offset);
    return toPage(
      rows.map((r) => ({
        course: { id: r.course_id, slug: r.slug, title: r.title },
        organization_id: r.organization_id,
        stars: r.stars,
        comment: r.comment,
        created_at: new Date(r.created_at).toISOString(),
        updated_at: new Date(r.updated_at).toISOString(),
      })),
      total,
      { limit, offset },
    );
  }

  private toDto(member: Membership, r: OrgRatingRow, author: CourseRatingDto['author']): CourseRatingDto {
    return {
      stars: r.stars,
      comment: r.comment,
      author,
      created_at: new Date(r.created_at).toISOString(),
      updated_at: new Date(r.updated_at).toISOString(),
      mine: r.user_id === member.userId,
    };
  }
}
