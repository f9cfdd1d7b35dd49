import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { FileStore, LocalFileStore } from './file-store';
import { S3FileStore } from './s3-file-store';

/** The one file store of the process, its driver chosen by STORAGE_URL (`file://` or `s3://`). */
@Global()
@Module({
  providers: [
    {
      provide: FileStore,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): FileStore =>
        config.storage.driver === 's3' ? new S3FileStore(config) : new LocalFileStore(config),
    },
  ],
  exports: [FileStore],
})
export class FilesModule {}
