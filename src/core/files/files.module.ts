import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { FileStore, LocalFileStore } from './file-store';
import type { S3FileStore } from './s3-file-store';

/** The one file store of the process, its driver chosen by STORAGE_URL (`file://` or `s3://`). */
@Global()
@Module({
  providers: [
    {
      provide: FileStore,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): FileStore => {
        if (config.storage.driver !== 's3') return new LocalFileStore(config);
        // Loaded only by a process that stores files in S3: the AWS SDK is ~300 modules a local store never needs.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { S3FileStore: Store } = require('./s3-file-store') as { S3FileStore: typeof S3FileStore };
        return new Store(config);
      },
    },
  ],
  exports: [FileStore],
})
export class FilesModule {}
