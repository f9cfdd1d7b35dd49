import { createCipheriv, createDecipheriv, type DecipherGCM, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { constants, createWriteStream } from 'node:fs';
import { access, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
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
  /**
   * Store the bytes exactly as given, without the store's marker, for files a web server or CDN serves as they are
   * (the static SEO pages): world-readable on disk, with `contentType` on S3. Read back with `{ raw: true }`;
   * never with `encrypt`.
   */
  readonly raw?: boolean;
  /** The object's Content-Type on S3 (raw files). */
  readonly contentType?: string;
}

export interface ReadOptions {
  /** The bytes as stored, for a file written with `raw`. */
  readonly raw?: boolean;
}

/** The key holds no file (never written, deleted, or expired): routes answer 410 with their expired code. */
export class FileNotFoundError extends Error {
  readonly code = 'file_not_found';
  constructor(readonly key: string) {
    super(`No such file: ${key}`);
    this.name = 'FileNotFoundError';
  }
}

/**
 * Generated files (reports, privacy exports) go through here, never through ad-hoc paths (DESIGN.md). Keys are
 * relative paths such as `reports/<org>/<id>.csv`. STORAGE_URL picks the driver (extensions-v3 5.1): the local
 * one writes under a folder (`file://`, a volume shared by API and worker processes when they run on different
 * machines), the S3 one into a bucket (`s3://`, multipart uploads while the file is produced). Both store the same
 * bytes (a marker, then the content or its AES-256-GCM ciphertext), so encryption happens before a byte leaves
 * the process.
 */
export abstract class FileStore {
  /** Writes the whole stream, then makes it visible at once (a reader never sees half a file). */
  abstract write(key: string, content: Readable | Buffer, options?: WriteOptions): Promise<StoredFile>;
  /**
   * The content (decrypted when it was stored encrypted); rejects with FileNotFoundError when the file does not
   * exist, and with another error when it is not one the store wrote. A tampered encrypted file makes the stream fail at its end (GCM checks the tag last): treat a
   * stream error as a failed read, never as a shorter file.
   */
  abstract read(key: string, options?: ReadOptions): Promise<Readable>;
  /** Whether the key holds a file. Invalid keys are refused (all methods throw on them), not reported missing. */
  abstract exists(key: string): Promise<boolean>;
  /** Idempotent. */
  abstract delete(key: string): Promise<void>;
  /** The keys of the files under a folder-like prefix (`seo/courses` lists `seo/courses/...`), sorted. */
  abstract list(prefix: string): Promise<string[]>;
  /** Whether the store answers (`/ready`): the folder is writable, or a HEAD on the bucket succeeds. */
  abstract healthy(): Promise<boolean>;
}

/** Path segments: no leading dot (so no `.`, `..` or hidden files), short enough for any file system. */
const KEY_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
const MAX_KEY_LENGTH = 1024;
/**
 * Every stored file starts with one of these four bytes, so reading never guesses from the content: `LPP1` then
 * the content as written; `LPE1`, a 12-byte IV, the AES-256-GCM ciphertext, and the 16-byte tag at the end.
 */
const PLAIN = Buffer.from('LPP1');
const SEALED = Buffer.from('LPE1');
const MAGIC_BYTES = 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC_BYTES + IV_BYTES;

/** The key unchanged, or an error for anything that could leave the store's folder or be read as something else. */
export function checkedKey(key: string): string {
  if (typeof key !== 'string' || key.length > MAX_KEY_LENGTH || !key.split('/').every((s) => KEY_SEGMENT.test(s))) {
    throw new Error(`Invalid file key: ${JSON.stringify(key)}`);
  }
  return key;
}

/** The stored bytes of a content: the marker, then the content (plain) or its ciphertext and tag (encrypted). */
export function encoder(options: WriteOptions, dataEncryptionKey: Buffer): Transform {
  if (options.raw && options.encrypt) throw new Error('A raw file cannot be encrypted');
  if (options.raw) return new PassThrough();
  return options.encrypt ? sealer(dataEncryptionKey) : prefixed(PLAIN);
}

/**
 * The content of stored bytes read front to back in one pass (an object store's GET): the marker decides; for an
 * encrypted file the last 16 bytes are held back as they arrive and checked as the GCM tag at the end, so a
 * tampered, truncated or foreign file fails the stream instead of ending it cleanly.
 */
export function decoder(key: string, dataEncryptionKey: Buffer): Transform {
  let head: Buffer | null = Buffer.alloc(0);
  let mode: 'plain' | 'sealed' | null = null;
  let decipher: DecipherGCM | null = null;
  let tail = Buffer.alloc(0);
  const sealedChunk = (bytes: Buffer): Buffer => {
    const all = tail.length ? Buffer.concat([tail, bytes]) : bytes;
    const keep = Math.min(TAG_BYTES, all.length);
    tail = Buffer.from(all.subarray(all.length - keep));
    return decipher!.update(all.subarray(0, all.length - keep));
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        if (mode === 'plain') return done(null, chunk);
        if (mode === 'sealed') return done(null, sealedChunk(chunk));
        head = Buffer.concat([head!, chunk]);
        if (head.length >= MAGIC_BYTES && head.subarray(0, MAGIC_BYTES).equals(PLAIN)) {
          mode = 'plain';
          const rest = head.subarray(MAGIC_BYTES);
          head = null;
          return done(null, rest.length ? rest : undefined);
        }
        if (head.length >= MAGIC_BYTES && !head.subarray(0, MAGIC_BYTES).equals(SEALED))
          throw new Error(`Not a file of this store: ${key}`);
        if (head.length < HEADER_BYTES) return done();
        mode = 'sealed';
        decipher = createDecipheriv('aes-256-gcm', dataEncryptionKey, head.subarray(MAGIC_BYTES, HEADER_BYTES));
        const rest = head.subarray(HEADER_BYTES);
        head = null;
        const out = sealedChunk(rest);
        done(null, out.length ? out : undefined);
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done) {
      try {
        if (mode === null) {
          if (head!.length >= MAGIC_BYTES && head!.subarray(0, MAGIC_BYTES).equals(SEALED))
            throw new Error(`Truncated encrypted file: ${key}`);
          throw new Error(`Not a file of this store: ${key}`);
        }
        if (mode === 'plain') return done();
        if (tail.length < TAG_BYTES) throw new Error(`Truncated encrypted file: ${key}`);
        decipher!.setAuthTag(tail);
        const last = decipher!.final();
        done(null, last.length ? last : undefined);
      } catch (err) {
        done(err as Error);
      }
    },
  });
}

/** Counts bytes passing through. */
export function counter(): Transform & { bytes: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      t.bytes += chunk.length;
      done(null, chunk);
    },
  }) as Transform & { bytes: number };
  t.bytes = 0;
  return t;
}

/** Emits `header` before the first byte (also for empty content), then the content unchanged. */
function prefixed(header: Buffer): Transform {
  let sent = false;
  const first = (): Buffer => {
    sent = true;
    return header;
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      done(null, sent ? chunk : Buffer.concat([first(), chunk]));
    },
    flush(done) {
      done(null, sent ? undefined : first());
    },
  });
}

/** `LPE1` + IV, the ciphertext as it streams, then the final block and the authentication tag. */
function sealer(key: Buffer): Transform {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  let header: Buffer | null = Buffer.concat([SEALED, iv]);
  const withHeader = (bytes: Buffer): Buffer => {
    const out = header ? Buffer.concat([header, bytes]) : bytes;
    header = null;
    return out;
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      done(null, withHeader(cipher.update(chunk)));
    },
    flush(done) {
      done(null, withHeader(Buffer.concat([cipher.final(), cipher.getAuthTag()])));
    },
  });
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
    const encode = encoder(options, this.config.dataEncryptionKey);
    const out = createWriteStream(temp, { mode: options.raw ? 0o644 : 0o600, flags: 'wx' });
    try {
      await pipeline(source, count, encode, out);
      await rename(temp, path);
    } catch (err) {
      // The stream may still be opening the file: wait until it is closed, or the removal could come first.
      if (!out.closed) await once(out, 'close');
      await rm(temp, { force: true });
      throw err;
    }
    return { sizeBytes: count.bytes };
  }

  async read(key: string, options: ReadOptions = {}): Promise<Readable> {
    const handle = await open(this.pathOf(key), 'r').catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new FileNotFoundError(key) : err;
    });
    if (options.raw) return handle.createReadStream({ autoClose: true });
    try {
      // Header and content come from the same open file, even if a new version replaces the name meanwhile.
      const { size } = await handle.stat();
      const header = Buffer.alloc(Math.min(HEADER_BYTES, size));
      await handle.read(header, 0, header.length, 0);
      const magic = header.subarray(0, MAGIC_BYTES);
      if (magic.equals(PLAIN)) return handle.createReadStream({ start: MAGIC_BYTES, autoClose: true });
      if (!magic.equals(SEALED)) throw new Error(`Not a file of this store: ${key}`);
      if (size < HEADER_BYTES + TAG_BYTES) throw new Error(`Truncated encrypted file: ${key}`);
      const tag = Buffer.alloc(TAG_BYTES);
      await handle.read(tag, 0, TAG_BYTES, size - TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', this.config.dataEncryptionKey, header.subarray(MAGIC_BYTES));
      decipher.setAuthTag(tag);
      const body = size - HEADER_BYTES - TAG_BYTES;
      const cipherText =
        body > 0
          ? handle.createReadStream({ start: HEADER_BYTES, end: size - TAG_BYTES - 1, autoClose: true })
          : (await handle.close(), Readable.from([]));
      const out = new PassThrough();
      // A tampered file fails at the end (GCM checks the tag last): the reader gets an error, never a clean end.
      pipeline(cipherText, decipher, out).catch((err: unknown) => out.destroy(err as Error));
      return out;
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    const path = this.pathOf(key);
    try {
      await stat(path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const dir = this.pathOf(prefix);
    const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    return (
      entries
        // Temporary files of writes in progress end in `.part` after a random suffix: not files of the store yet.
        .filter((e) => e.isFile() && !/\.[0-9a-f]{12}\.part$/.test(e.name))
        .map((e) => relative(this.root, join(e.parentPath, e.name)).split(sep).join('/'))
        .sort()
    );
  }

  async healthy(): Promise<boolean> {
    try {
      await mkdir(this.root, { recursive: true });
      await access(this.root, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }

  /** The file of a key, refusing anything that could leave the storage folder or be read as something else. */
  private pathOf(key: string): string {
    checkedKey(key);
    const path = resolve(join(this.root, key));
    if (!path.startsWith(this.root + sep)) throw new Error(`Invalid file key: ${JSON.stringify(key)}`);
    return path;
  }
}
