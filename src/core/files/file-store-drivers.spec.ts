import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { AppConfig } from '@/config/app-config';
import { loadConfig } from '@/config/load-config';
import { startS3Server, type S3Server } from '../../../test/support/s3-server';
import { FileNotFoundError, type FileStore, LocalFileStore } from './file-store';
import { PART_BYTES, S3FileStore, s3Client } from './s3-file-store';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A stream of `total` pseudo-random bytes produced lazily, and what it produced. */
function bigStream(total: number, chunk = 64 * 1024): { stream: Readable; digest: () => Buffer } {
  const seen: Buffer[] = [];
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= total) return this.push(null);
      const piece = randomBytes(Math.min(chunk, total - sent));
      sent += piece.length;
      seen.push(piece);
      this.push(piece);
    },
  });
  return { stream, digest: () => Buffer.concat(seen) };
}

/** One driver under test: the store, and the raw stored bytes / names behind it (to check what is at rest). */
interface Driver {
  store: FileStore;
  config: AppConfig;
  raw(key: string): Promise<Buffer>;
  putRaw(key: string, bytes: Buffer): Promise<void>;
  /** Every stored name, as the backend sees it (relative to the folder; full object keys in the bucket). */
  names(): Promise<string[]>;
  /** A store of the same driver that cannot work (a folder that is a file; a bucket that does not exist). */
  broken(): FileStore;
  close(): Promise<void>;
}

const ENV = { DATA_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'), AUTH_SECRET: 'x'.repeat(40) };

async function localDriver(): Promise<Driver> {
  const dir = mkdtempSync(join(tmpdir(), 'lp-files-'));
  const config = loadConfig({ ...ENV, DATA_DIR: dir, STORAGE_URL: `file://${dir}/store` });
  const { readdir } = await import('node:fs/promises');
  return {
    store: new LocalFileStore(config),
    config,
    raw: async (key) => readFileSync(join(dir, 'store', key)),
    putRaw: async (key, bytes) => {
      const { mkdir, writeFile } = await import('node:fs/promises');
      await mkdir(join(dir, 'store', key, '..'), { recursive: true });
      await writeFile(join(dir, 'store', key), bytes);
    },
    names: async () =>
      (await readdir(join(dir, 'store'), { recursive: true, withFileTypes: true }).catch(() => []))
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name).slice(join(dir, 'store').length + 1))
        .sort(),
    broken: () => {
      const file = join(dir, 'not-a-folder');
      writeFileSync(file, 'x');
      return new LocalFileStore(loadConfig({ ...ENV, DATA_DIR: dir, STORAGE_URL: `file://${file}` }));
    },
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function s3Driver(): Promise<Driver> {
  const server: S3Server = await startS3Server({ prefix: 'tenant-a/files' });
  const dir = mkdtempSync(join(tmpdir(), 'lp-files-'));
  const config = loadConfig({ ...ENV, DATA_DIR: dir, ...server.env });
  if (config.storage.driver !== 's3') throw new Error('expected s3');
  const client: S3Client = s3Client(config.storage);
  const store = new S3FileStore(config);
  const objectKey = (key: string): string => `tenant-a/files/${key}`;
  return {
    store,
    config,
    raw: async (key) => {
      const res = await client.send(new GetObjectCommand({ Bucket: server.bucket, Key: objectKey(key) }));
      return Buffer.from(await res.Body!.transformToByteArray());
    },
    putRaw: async (key, bytes) => {
      await client.send(new PutObjectCommand({ Bucket: server.bucket, Key: objectKey(key), Body: bytes }));
    },
    names: async () => {
      const res = await client.send(new ListObjectsV2Command({ Bucket: server.bucket }));
      return (res.Contents ?? []).map((o) => o.Key!).sort();
    },
    broken: () =>
      new S3FileStore(
        loadConfig({
          ...ENV,
          DATA_DIR: dir,
          ...server.env,
          STORAGE_URL: server.url.replace('s3://lp-test', 's3://no-such-bucket'),
        }),
      ),
    close: async () => {
      store.onModuleDestroy();
      client.destroy();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The same contract for both drivers: what reports and privacy exports rely on, whatever STORAGE_URL says. */
describe.each([
  ['file', localDriver],
  ['s3', s3Driver],
] as const)('FileStore contract: %s driver', (kind, make) => {
  let d: Driver;
  beforeAll(async () => {
    d = await make();
  });
  afterAll(() => d.close());
  const stored = (key: string): string => (kind === 's3' ? `tenant-a/files/${key}` : key);

  it('writes a buffer and a stream and reads them back as streams; sizes are of the content', async () => {
    const content = Buffer.from('id,name\n1,Ana\n');
    expect(await d.store.write('reports/org/a.csv', content)).toEqual({ sizeBytes: content.length });
    expect(await readAll(await d.store.read('reports/org/a.csv'))).toEqual(content);
    expect(await d.raw('reports/org/a.csv')).toEqual(Buffer.concat([Buffer.from('LPP1'), content]));
    await d.store.write('reports/org/b.csv', Readable.from([Buffer.from('a'), Buffer.from('b')]));
    expect((await readAll(await d.store.read('reports/org/b.csv'))).toString()).toBe('ab');
    expect(await d.store.exists('reports/org/a.csv')).toBe(true);
  });

  it('empty files, plain and encrypted', async () => {
    await d.store.write('e/plain', Buffer.alloc(0));
    await d.store.write('e/sealed', Buffer.alloc(0), { encrypt: true });
    expect(await readAll(await d.store.read('e/plain'))).toEqual(Buffer.alloc(0));
    expect(await readAll(await d.store.read('e/sealed'))).toEqual(Buffer.alloc(0));
  });

  it('encrypts before the bytes leave the process: what is stored is never the plaintext', async () => {
    const content = Buffer.from('{"email":"ana@example.test","secret":"plain words"}'.repeat(10));
    await d.store.write('exports/u/x.zip', content, { encrypt: true });
    const rest = await d.raw('exports/u/x.zip');
    expect(rest.subarray(0, 4).toString()).toBe('LPE1');
    expect(rest.includes(Buffer.from('ana@example.test'))).toBe(false);
    expect(rest.length).toBe(content.length + 4 + 12 + 16);
    expect(await readAll(await d.store.read('exports/u/x.zip'))).toEqual(content);
  });

  it('streams a file larger than several multipart parts both ways, plain and encrypted', async () => {
    for (const encrypt of [false, true]) {
      const total = 2 * PART_BYTES + 12345;
      const big = bigStream(total);
      expect((await d.store.write(`big/${String(encrypt)}.bin`, big.stream, { encrypt })).sizeBytes).toBe(total);
      const back = await readAll(await d.store.read(`big/${String(encrypt)}.bin`));
      expect(back.equals(big.digest())).toBe(true);
    }
  }, 60_000);

  it('a tampered or truncated encrypted file fails the read stream; a foreign file is refused', async () => {
    await d.store.write('t/a.bin', randomBytes(5000), { encrypt: true });
    const bytes = await d.raw('t/a.bin');
    bytes[100] ^= 1;
    await d.putRaw('t/a.bin', bytes);
    await expect((async () => readAll(await d.store.read('t/a.bin')))()).rejects.toThrow(/authenticate/);
    await d.putRaw('t/a.bin', bytes.subarray(0, 4 + 12 + 10));
    await expect((async () => readAll(await d.store.read('t/a.bin')))()).rejects.toThrow();
    await d.putRaw('t/foreign', Buffer.from('id,name\n'));
    await expect((async () => readAll(await d.store.read('t/foreign')))()).rejects.toThrow(/Not a file of this store/);
  });

  it('a missing file: exists is false and read rejects with FileNotFoundError; delete is idempotent', async () => {
    await d.store.write('d/a', Buffer.from('x'));
    await d.store.delete('d/a');
    await d.store.delete('d/a');
    await d.store.delete('d/never');
    expect(await d.store.exists('d/a')).toBe(false);
    const err = await d.store.read('d/a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileNotFoundError);
    expect(err).toMatchObject({ code: 'file_not_found', key: 'd/a' });
  });

  it('a failed write leaves nothing behind and keeps the previous version', async () => {
    await d.store.write('w/a.csv', Buffer.from('old'));
    const before = await d.names();
    for (const encrypt of [false, true]) {
      let n = 0;
      const failing = new Readable({
        read() {
          n++;
          // Past one multipart part, so the S3 driver has parts to abort.
          if (n < 100) this.push(randomBytes(64 * 1024));
          else this.destroy(new Error('source failed'));
        },
      });
      await expect(d.store.write('w/a.csv', failing, { encrypt })).rejects.toThrow('source failed');
      await expect(d.store.write('w/new.csv', Readable.from(failingAtOnce()), { encrypt })).rejects.toThrow('at once');
    }
    expect(await d.names()).toEqual(before);
    expect((await readAll(await d.store.read('w/a.csv'))).toString()).toBe('old');
  }, 60_000);

  it('keys: every name lives under the prefix; keys that could escape it are refused everywhere', async () => {
    await d.store.write('p/one', Buffer.from('1'));
    expect(await d.names()).toContain(stored('p/one'));
    for (const bad of ['../escape', 'a/../../b', '/etc/passwd', 'a//b', '', '.hidden', 'a b']) {
      await expect(d.store.write(bad, Buffer.from('x'))).rejects.toThrow(/Invalid file key/);
      await expect(d.store.read(bad)).rejects.toThrow(/Invalid file key/);
      await expect(d.store.exists(bad)).rejects.toThrow(/Invalid file key/);
      await expect(d.store.delete(bad)).rejects.toThrow(/Invalid file key/);
    }
    expect((await d.names()).every((n) => n.startsWith(stored('')))).toBe(true);
  });

  it('raw files are stored exactly as given (no marker) and read back raw; raw cannot be encrypted', async () => {
    const html = Buffer.from('<!doctype html><title>Curso</title>');
    await d.store.write('seo/courses/a.html', html, { raw: true, contentType: 'text/html; charset=utf-8' });
    expect(await d.raw('seo/courses/a.html')).toEqual(html);
    expect(await readAll(await d.store.read('seo/courses/a.html', { raw: true }))).toEqual(html);
    await expect(d.store.write('seo/x', html, { raw: true, encrypt: true })).rejects.toThrow(/cannot be encrypted/);
    expect(await d.store.exists('seo/x')).toBe(false);
  });

  it('lists the keys under a folder-like prefix, sorted, without the store prefix; nothing for an empty one', async () => {
    for (const k of ['l/b/two', 'l/a', 'l/b/one', 'lx/not-under']) await d.store.write(k, Buffer.from('x'));
    expect(await d.store.list('l')).toEqual(['l/a', 'l/b/one', 'l/b/two']);
    expect(await d.store.list('l/b')).toEqual(['l/b/one', 'l/b/two']);
    expect(await d.store.list('nothing/here')).toEqual([]);
    await expect(d.store.list('../l')).rejects.toThrow(/Invalid file key/);
  });

  it('the test server takes any credentials (other processes configured with their own keys reach it)', async () => {
    if (kind !== 's3') return;
    const other = new S3FileStore({
      ...d.config,
      storage: { ...d.config.storage, credentials: { accessKeyId: 'any-key', secretAccessKey: 'any-secret' } },
    } as AppConfig);
    try {
      expect(await readAll(await other.read('reports/org/a.csv'))).toEqual(Buffer.from('id,name\n1,Ana\n'));
    } finally {
      other.onModuleDestroy();
    }
  });

  it('healthy: true when the store answers, false when it cannot', async () => {
    expect(await d.store.healthy()).toBe(true);
    const broken = d.broken();
    expect(await broken.healthy()).toBe(false);
    if (broken instanceof S3FileStore) broken.onModuleDestroy();
  });
});

// eslint-disable-next-line require-yield -- a source that fails before its first chunk
async function* failingAtOnce(): AsyncGenerator<Buffer> {
  await Promise.resolve();
  throw new Error('fails at once');
}
