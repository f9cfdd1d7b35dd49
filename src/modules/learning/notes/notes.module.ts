import { Module } from '@nestjs/common';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { ProgressModule } from '@/modules/learning/progress/progress.module';
import { NotesController } from './notes.controller';
import { NotesPersonalData } from './notes.personal-data';
import { NotesRepository } from './notes.repository';
import { EXPORT_MAX_BYTES, NOTES_EXPORT_MAX_BYTES, NotesService } from './notes.service';

/** Personal notes per lesson and their Markdown export (extensions-v2 section 10). */
@Module({
  imports: [CoursesModule, ProgressModule, OrganizationsModule],
  controllers: [NotesController],
  providers: [
    NotesRepository,
    NotesService,
    NotesPersonalData,
    { provide: NOTES_EXPORT_MAX_BYTES, useValue: EXPORT_MAX_BYTES },
  ],
})
export class NotesModule {}
