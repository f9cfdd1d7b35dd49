import { Injectable } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import type { Tx } from '@/core/database/transaction';
import { CohortsService } from '@/modules/cohorts/cohorts.service';
import { UsersService } from '@/modules/users/users.service';
import { type CertificateType, formatCode } from './certificate-code';
import { CertificatesRepository, type IssuedCertificateRow } from './certificates.repository';

export interface IssueInput {
  type: CertificateType;
  organizationId: string;
  userId: string;
  /** The course (type `course`) or the program (type `program`). */
  subjectId: string;
  title: string;
  grade?: number | null;
}

/**
 * Issues course and program certificates for an organization. Other areas call `issue` inside the transaction
 * that completes the course or program, so the completion and its certificate commit together.
 */
@Injectable()
export class CertificatesService {
  constructor(
    private readonly certificates: CertificatesRepository,
    private readonly users: UsersService,
    private readonly cohorts: CohortsService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
  ) {}

  /** Idempotent: a person holds at most one active certificate per course or program in an organization. */
  async issue(input: IssueInput, tx: Tx): Promise<{ certificate: IssuedCertificateRow; issued: boolean }> {
    const existing = await this.certificates.findActive(
      input.organizationId,
      input.userId,
      input.type,
      input.subjectId,
      tx,
    );
    if (existing) return { certificate: existing, issued: false };
    const user = await this.users.findById(input.userId, tx);
    const holderName = user?.name ?? user?.username ?? 'Learner';
    const [cohortId = null] = await this.cohorts.cohortIdsOf(input.organizationId, input.userId, 'student', tx);
    for (let attempt = 0; attempt < 5; attempt++) {
      const inserted = await this.certificates.insertIfAbsent(
        {
          code: formatCode(input.type, (alphabet, n) => this.crypto.randomFromAlphabet(alphabet, n)),
          type: input.type,
          organizationId: input.organizationId,
          userId: input.userId,
          holderName,
          courseId: input.type === 'course' ? input.subjectId : null,
          pathId: input.type === 'program' ? input.subjectId : null,
          cohortId,
          title: input.title,
          grade: input.grade ?? null,
          issuedAt: this.clock.now(),
        },
        tx,
      );
      if (inserted) return { certificate: inserted, issued: true };
      // Either a concurrent issue won (return it) or the random code collided (draw another).
      const winner = await this.certificates.findActive(
        input.organizationId,
        input.userId,
        input.type,
        input.subjectId,
        tx,
      );
      if (winner) return { certificate: winner, issued: false };
    }
    throw new Error('Could not draw a free certificate code');
  }
}
