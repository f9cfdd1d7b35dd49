import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, IsUUID, Length, Min, ValidateIf } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';

export class NoteDto {
  @ApiProperty({ format: 'uuid' }) lesson_id!: string;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() content_md!: string;
  @ApiProperty({ minimum: 1, description: 'Starts at 1 and grows with every save' }) version!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class SaveNoteDto {
  @ApiProperty({ minLength: 1, maxLength: 20000 }) @IsString() @Length(1, 20000) content_md!: string;
  @ApiPropertyOptional({
    minimum: 0,
    description: 'The version this edit started from: a different stored version is 409 `note_version_conflict`',
  })
  @ValidateIf((_, v) => v !== undefined)
  @IsInt()
  @Min(0)
  base_version?: number;
}

export class NoteListItemDto {
  @ApiProperty({ format: 'uuid' }) lesson_id!: string;
  @ApiProperty() lesson_title!: string;
  @ApiProperty({ minimum: 1 }) lesson_position!: number;
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() course_title!: string;
  @ApiProperty({ description: 'The first 200 characters as plain text' }) excerpt!: string;
  @ApiProperty({ minimum: 1 }) version!: number;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class NoteListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID() course_id?: string;
  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'Case- and accent-insensitive substring' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  q?: string;
}

export class NoteExportQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'One course; without it every course with notes' })
  @IsOptional()
  @IsUUID()
  course_id?: string;
}
