import { Injectable } from '@nestjs/common';
import type { Membership } from '@/core/auth/tenancy';
import { type Page, toPage } from '@/core/http/pagination';
import type { SearchQueryDto, SearchResultDto } from './dto/search.dto';
import { SearchRepository } from './search.repository';
import { plainSnippet } from './snippet';

@Injectable()
export class SearchService {
  constructor(private readonly search: SearchRepository) {}

  async find(member: Membership, query: SearchQueryDto): Promise<Page<SearchResultDto>> {
    const { rows, total } = await this.search.search(member.organizationId, query.q, query.type, query);
    return toPage(
      rows.map((row) => ({
        type: row.type,
        id: row.id,
        course_id: row.course_id,
        title: row.title,
        snippet: plainSnippet(row.headline),
        score: Math.round(row.score * 1e6) / 1e6,
      })),
      total,
      query,
    );
  }
}
