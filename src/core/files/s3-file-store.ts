import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type StorageSettings } from '@/config/app-config';
import {
  checkedKey,
  counter,
  decoder,
  encoder,
  FileNotFoundError,
  FileStore,
  type ReadOptions,
  type StoredFile,
  type WriteOptions,
} from './file-store';

type S3Settings = Extract<StorageSettings, { driver: 's3' }>;

/**
 * Parts of a multipart upload: S3's minimum (5 MiB), two in flight. A file is written while it is produced, so the
 * memory a write holds is about `PART_BYTES * QUEUE_SIZE` whatever the file's size; a file smaller than one part is
 * a single PUT.
 */
export const PART_BYTES = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

function notFound(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
}

/** A client for the settings of STORAGE_URL (also used by the benchmark and the tests' server). */
export function s3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    endpoint: settings.endpoint ?? undefined,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials ?? undefined,
    // Checksums only where S3 requires them: S3-compatible stores (MinIO, s3rver...) do not all accept the
    // default CRC32 trailers of streamed uploads.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
}

/**
 * The S3 driver of the file store (`STORAGE_URL=s3://...`): objects under `<prefix>/<key>` in one bucket, holding
 * exactly the bytes the local driver writes to disk (marker, content or ciphertext), so privacy exports are
 * encrypted before they leave the process. Writes stream into a multipart upload that becomes visible only when
 * it completes (aborted on any error: no half file); reads stream the GET through the decoder.
 */
@Injectable()
export class S3FileStore extends FileStore implements OnModuleDestroy {
  private readonly settings: S3Settings;
  private readonly client: S3Client;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super();
    if (config.storage.driver !== 's3') throw new Error('S3FileStore needs an s3:// STORAGE_URL');
    this.settings = config.storage;
    this.client = s3Client(this.settings);
  }

  onModuleDestroy(): void {
    this.client.destroy();
  }

  async write(key: string, content: Readable | Buffer, options: WriteOptions = {}): Promise<StoredFile> {
    const objectKey = this.objectKey(key);
    const encode = encoder(options, this.config.dataEncryptionKey);
    const source = Buffer.isBuffer(content) ? Readable.from([content]) : content;
    const count = counter();
    const body = new PassThrough({ highWaterMark: 1024 * 1024 });
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.settings.bucket,
        Key: objectKey,
        Body: body,
        ContentType: (options.raw && options.contentType) || 'application/octet-stream',
      },
      partSize: PART_BYTES,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    // Whichever side fails first stops the other: a failed producer aborts the upload (which would otherwise wait
    // for more bytes forever), a failed upload stops the producer. The producer's error is the one reported.
    const failed: { producer?: Error } = {};
    const produced = pipeline(source, count, encode, body).catch(async (err: unknown) => {
      failed.producer = err instanceof Error ? err : new Error(String(err));
      await upload.abort().catch(() => undefined);
    });
    const uploaded = upload.done().catch((err: unknown) => {
      body.destroy(err as Error);
      source.destroy();
      throw err;
    });
    try {
      await Promise.all([produced, uploaded]);
    } catch (err) {
      await produced;
      throw failed.producer ?? (err instanceof Error ? err : new Error(String(err)));
    }
    if (failed.producer) throw failed.producer;
    return { sizeBytes: count.bytes };
  }

  async read(key: string, options: ReadOptions = {}): Promise<Readable> {
    const objectKey = this.objectKey(key);
    let body: Readable;
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
      body = res.Body as Readable;
    } catch (err) {
      if (notFound(err)) throw new FileNotFoundError(key);
      throw err;
    }
    if (options.raw) return body;
    const out = decoder(key, this.config.dataEncryptionKey);
    // A failed or tampered object fails the reader's stream (never a clean, shorter end).
    pipeline(body, out).catch((err: unknown) => out.destroy(err as Error));
    return out;
  }

  async exists(key: string): Promise<boolean> {
    const objectKey = this.objectKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
      return true;
    } catch (err) {
      if (notFound(err)) return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const objectKey = this.objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
    } catch (err) {
      if (!notFound(err)) throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const folder = `${this.objectKey(prefix)}/`;
    const strip = this.settings.prefix ? this.settings.prefix.length + 1 : 0;
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: folder, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key.slice(strip));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async healthy(): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.settings.bucket }));
      return true;
    } catch {
      return false;
    }
  }

  /** `<prefix>/<key>`: the key checked exactly as the local driver checks it. */
  private objectKey(key: string): string {
    checkedKey(key);
    return this.settings.prefix ? `${this.settings.prefix}/${key}` : key;
  }
}
