import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { AI_PROVIDERS, type AiProviderName } from '@/modules/assistant/ai-usage';
import { TokenUsageDto } from './tutor.dto';

export const PROPOSAL_KINDS = ['single', 'multiple', 'true_false'] as const;
export type ProposalKindName = (typeof PROPOSAL_KINDS)[number];
export const PROPOSAL_STATUSES = ['queued', 'running', 'ready', 'failed'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

export class CreateQuizProposalDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 10, default: 5, description: 'Questions to propose' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10)
  count?: number;

  @ApiPropertyOptional({
    enum: PROPOSAL_KINDS,
    isArray: true,
    maxItems: 3,
    default: [...PROPOSAL_KINDS],
    description: 'Kinds allowed (the local generator writes `single` and `true_false` only)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @ArrayUnique()
  @IsIn(PROPOSAL_KINDS, { each: true })
  kinds?: ProposalKindName[];
}

export class AcceptQuizProposalDto {
  @ApiProperty({
    type: 'integer',
    isArray: true,
    minimum: 1,
    maximum: 10,
    minItems: 1,
    maxItems: 10,
    uniqueItems: true,
    description: 'The `index` of each question to append to the lesson quiz (1..10, distinct)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(10, { each: true })
  indexes!: number[];

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 100,
    description: "Replaces the quiz's passing score (a new quiz gets 70 without it)",
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(100)
  passing_score?: number;
}

export class ProposalOptionDto {
  @ApiProperty() text!: string;
  @ApiProperty() correct!: boolean;
}

export class ProposalSourceDto {
  @ApiProperty({ format: 'uuid', description: 'The passage of the lesson the question rests on' }) chunk_id!: string;
  @ApiProperty({ maxLength: 300 }) snippet!: string;
}

export class ProposedQuestionDto {
  @ApiProperty({ minimum: 1 }) index!: number;
  @ApiProperty() prompt!: string;
  @ApiProperty({ enum: PROPOSAL_KINDS }) kind!: ProposalKindName;
  @ApiProperty({ type: [ProposalOptionDto] }) options!: ProposalOptionDto[];
  @ApiProperty({ type: String, nullable: true }) explanation!: string | null;
  @ApiProperty({ type: ProposalSourceDto }) source!: ProposalSourceDto;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) accepted_at!: string | null;
}

export class ProposalCreatorDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) user_id!: string | null;
}

export class QuizProposalDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty({ format: 'uuid' }) lesson_id!: string;
  @ApiProperty({ enum: PROPOSAL_STATUSES }) status!: ProposalStatus;
  @ApiProperty({ minimum: 1, maximum: 10 }) count!: number;
  @ApiProperty({ enum: PROPOSAL_KINDS, isArray: true }) kinds!: ProposalKindName[];
  @ApiProperty({ enum: AI_PROVIDERS, type: String, nullable: true }) provider!: AiProviderName | null;
  @ApiProperty({ type: String, nullable: true }) model!: string | null;
  @ApiProperty({ type: [ProposedQuestionDto] }) questions!: ProposedQuestionDto[];
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['ai_invalid_output', 'ai_provider_error', 'ai_timeout', 'lesson_empty'],
    description: 'Why a failed proposal failed',
  })
  error_code!: string | null;
  @ApiProperty({ type: TokenUsageDto, nullable: true }) usage!: TokenUsageDto | null;
  @ApiProperty({ type: ProposalCreatorDto }) created_by!: ProposalCreatorDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
}

export class QuizProposalListDto {
  @ApiProperty({ type: [QuizProposalDto], maxItems: 20, description: 'The 20 most recent, newest first' })
  items!: QuizProposalDto[];
}
