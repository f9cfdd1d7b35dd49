import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { PassThrough, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';

export interface StoredFile {
  /** Bytes of the content as written (before encryption at rest). */
  readonly sizeBytes: number;
}

export interface WriteOptions {
  /** Encrypt at rest with AES-256-GCM under DATA_ENCRYPTION_KEY (privacy exports must be). */
  readonly encrypt?: boolean;
}

/**
 * Generated files (reports, privacy exports) go through here, never through ad-hoc paths (DESIGN.md). Keys are
 * relative paths such as `reports/<org>/<id>.csv`. The local driver writes under STORAGE_DIR, which must be a
 * volume shared by API and worker processes when they run on different machines; an object store can implement
 * the same interface.
 */
export abstract class FileStore {
  /** Writes the whole stream, then makes it visible at once (a reader never sees half a file). */
  abstract write(key: string, content: Readable | Buffer, options?: WriteOptions): Promise<StoredFile>;
  /** The content (decrypted when it was stored encrypted); rejects when the file does not exist. */
  abstract read(key: string): Promise<Readable>;
  abstract exists(key: string): Promise<boolean>;
  /** Idempotent. */
  abstract delete(key: string): Promise<void>;
}

const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
const MAGIC = Buffer.from('LPE1');
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + IV_BYTES;

/** Counts bytes passing through. */
function counter(): Transform & { bytes: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      t.bytes += chunk.length;
      done(null, chunk);
    },
  }) as Transform & { bytes: number };
  t.bytes = 0;
  return t;
}

@Injectable()
export class LocalFileStore extends FileStore {
  private readonly root: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super();
    this.root = resolve(config.storageDir);
  }

  async write(key: string, content: Readable | Buffer, options: WriteOptions = {}): Promise<StoredFile> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.${randomBytes(6).toString('hex')}.part`;
    const source = Buffer.isBuffer(content) ? Readable.from([content]) : content;
    const count = counter();
    try {
      if (options.encrypt) {
        const iv = randomBytes(IV_BYTES);
        const cipher = createCipheriv('aes-256-gcm', this.config.dataEncryptionKey, iv);
        const out = createWriteStream(temp, { mode: 0o600 });
        out.write(Buffer.concat([MAGIC, iv]));
        await pipeline(source, count, cipher, out, { end: false });
        await new Promise<void>((done, fail) =>
          out.end(cipher.getAuthTag(), (err?: Error | null) => (err ? fail(err) : done())),
        );
      } else {
        await pipeline(source, count, createWriteStream(temp, { mode: 0o600 }));
      }
      await rename(temp, path);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    return { sizeBytes: count.bytes };
  }

  async read(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    const { size } = await stat(path);
    const handle = await open(path, 'r');
    let header: Buffer;
    let tag: Buffer;
    try {
      header = Buffer.alloc(Math.min(HEADER_BYTES, size));
      await handle.read(header, 0, header.length, 0);
      tag = Buffer.alloc(TAG_BYTES);
      if (size >= HEADER_BYTES + TAG_BYTES) await handle.read(tag, 0, TAG_BYTES, size - TAG_BYTES);
    } finally {
      await handle.close();
    }
    if (size < HEADER_BYTES + TAG_BYTES || !header.subarray(0, MAGIC.length).equals(MAGIC)) {
      return createReadStream(path);
    }
    const decipher = createDecipheriv('aes-256-gcm', this.config.dataEncryptionKey, header.subarray(MAGIC.length));
    decipher.setAuthTag(tag);
    const out = new PassThrough();
    const body = size - HEADER_BYTES - TAG_BYTES;
    const cipherText =
      body > 0 ? createReadStream(path, { start: HEADER_BYTES, end: size - TAG_BYTES - 1 }) : Readable.from([]);
    pipeline(cipherText, decipher, out).catch((err: unknown) => out.destroy(err as Error));
    return out;
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    if (!KEY.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
      throw new Error(`Invalid file key: ${key}`);
    }
    const path = resolve(join(this.root, key));
    if (!path.startsWith(this.root + sep)) throw new Error(`Invalid file key: ${key}`);
    return path;
  }
}
