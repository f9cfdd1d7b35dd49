import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';
import { QuizProposalsRepository } from './quiz-proposals.repository';
import { TutorRepository } from './tutor.repository';

/** Tutor conversations and their messages (extensions-v2 17.4): exported in full, deleted on erasure. */
@Injectable()
@PersonalData({ area: 'tutor', key: 'conversations', tables: ['tutor_conversations', 'tutor_messages'] })
export class TutorConversationsPersonalData implements PersonalDataHandler {
  constructor(private readonly tutor: TutorRepository) {}

  export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return this.tutor.personConversations(userId, db);
  }

  async erase(ctx: EraseContext): Promise<void> {
    await this.tutor.deletePersonConversations(ctx.userId, ctx.tx);
  }
}

/**
 * Quiz proposals an editor asked for: the proposals are drafts of catalog content, not about the person, so they
 * stay for the course and lose their `created_by` on erasure (as courses keep theirs through `ON DELETE SET NULL`).
 */
@Injectable()
@PersonalData({ area: 'tutor', key: 'quiz_proposals', tables: ['quiz_proposals'] })
export class QuizProposalsPersonalData implements PersonalDataHandler {
  constructor(private readonly proposals: QuizProposalsRepository) {}

  export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return this.proposals.personRows(userId, db);
  }

  async erase(ctx: EraseContext): Promise<void> {
    await this.proposals.forgetCreator(ctx.userId, ctx.tx);
  }
}
