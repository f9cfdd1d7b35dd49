import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, IsUUID, Length, MaxLength } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { AI_PROVIDERS, type AiProviderName } from '@/modules/assistant/ai-usage';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const lower = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.toLowerCase() : value);

export const MESSAGE_MAX = 4000;

export class CreateConversationDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, description: 'A course of the organization the caller is enrolled in' })
  @Transform(lower)
  @MaxLength(36)
  @IsUUID('all')
  course_id!: string;

  @ApiPropertyOptional({
    format: 'uuid',
    maxLength: 36,
    description: 'A lesson of that course: its passages weigh more in retrieval',
  })
  @IsOptional()
  @Transform(lower)
  @MaxLength(36)
  @IsUUID('all')
  lesson_id?: string;
}

export class ConversationQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', maxLength: 36 })
  @IsOptional()
  @Transform(lower)
  @MaxLength(36)
  @IsUUID('all')
  course_id?: string;
}

export class SendMessageDto {
  @ApiProperty({ minLength: 1, maxLength: MESSAGE_MAX, description: 'The question (trimmed)' })
  @Transform(trim)
  @IsString()
  @Length(1, MESSAGE_MAX)
  content!: string;
}

export class CitationDto {
  @ApiProperty({ minimum: 1, maximum: 6, description: 'The marker `[index]` in the text' }) index!: number;
  @ApiProperty({ format: 'uuid' }) lesson_id!: string;
  @ApiProperty() lesson_title!: string;
  @ApiProperty({ minimum: 1 }) lesson_position!: number;
  @ApiProperty({ format: 'uuid', description: 'The passage (stable while its text is unchanged)' }) chunk_id!: string;
  @ApiProperty({ maxLength: 300, description: 'The passage as plain text' }) snippet!: string;
  @ApiProperty({ example: 'https://app.example.org/courses/python/lessons/6f1c…' }) url!: string;
}

export class TokenUsageDto {
  @ApiProperty({ minimum: 0 }) input_tokens!: number;
  @ApiProperty({ minimum: 0 }) output_tokens!: number;
}

export class TutorMessageDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['user', 'assistant'] }) role!: 'user' | 'assistant';
  @ApiProperty() content!: string;
  @ApiProperty({ type: [CitationDto] }) citations!: CitationDto[];
  @ApiProperty({
    enum: ['complete', 'interrupted', 'failed'],
    description:
      '`interrupted`: the learner left mid-answer (what was streamed is kept); `failed`: the provider failed',
  })
  status!: 'complete' | 'interrupted' | 'failed';
  @ApiProperty({ type: TokenUsageDto, nullable: true }) usage!: TokenUsageDto | null;
  @ApiProperty({ enum: AI_PROVIDERS, nullable: true, type: String }) provider!: AiProviderName | null;
  @ApiProperty({ type: String, nullable: true }) model!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class ConversationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) lesson_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 80, description: 'The first question cut at 80 characters' })
  title!: string | null;
  @ApiProperty({ minimum: 0 }) messages_count!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class ConversationDetailDto extends ConversationDto {
  @ApiProperty({ type: [TutorMessageDto], description: 'Oldest first' }) messages!: TutorMessageDto[];
}

// The data of the server-sent events (documented; the stream itself is text/event-stream).

export class StartEventDto {
  @ApiProperty({ format: 'uuid' }) conversation_id!: string;
  @ApiProperty({ format: 'uuid' }) user_message_id!: string;
  @ApiProperty({ format: 'uuid' }) assistant_message_id!: string;
  @ApiProperty({ enum: AI_PROVIDERS }) provider!: AiProviderName;
  @ApiProperty() model!: string;
}

export class DeltaEventDto {
  @ApiProperty() text!: string;
}

export class DoneEventDto {
  @ApiProperty({ format: 'uuid' }) message_id!: string;
  @ApiProperty({ type: TokenUsageDto }) usage!: TokenUsageDto;
  @ApiProperty({ enum: AI_PROVIDERS, description: '`local` when the remote provider failed before its first delta' })
  provider!: AiProviderName;
  @ApiProperty() model!: string;
  @ApiProperty({ enum: ['stop', 'length'] }) finish_reason!: 'stop' | 'length';
}

export class ErrorEventDto {
  @ApiProperty({ enum: ['ai_provider_error', 'ai_timeout', 'internal_error'] }) code!: string;
  @ApiProperty() message!: string;
}
