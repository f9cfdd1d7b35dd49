import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  PayloadTooLargeException,
  type Type,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { memoryStorage } from 'multer';
import type { Observable } from 'rxjs';
import { ApiError } from '@/core/http/api-error';
import { IMPORT_MAX_BYTES } from './import-file';

const MulterFile: Type<NestInterceptor> = FileInterceptor('file', {
  storage: memoryStorage(),
  limits: { fileSize: IMPORT_MAX_BYTES, files: 1, fields: 5, parts: 6 },
});

/** Reads the multipart `file` part into memory (at most 5 MiB); a larger file is 413 `import_too_large`. */
@Injectable()
export class CsvUploadInterceptor implements NestInterceptor {
  private readonly multer = new MulterFile();

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    try {
      return await this.multer.intercept(context, next);
    } catch (err) {
      if (err instanceof PayloadTooLargeException)
        throw new ApiError('import_too_large', 'The file is larger than 5 MiB.');
      throw err;
    }
  }
}
