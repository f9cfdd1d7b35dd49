import { Global, Module } from '@nestjs/common';
import { FileStore, LocalFileStore } from './file-store';

@Global()
@Module({ providers: [{ provide: FileStore, useClass: LocalFileStore }], exports: [FileStore] })
export class FilesModule {}
