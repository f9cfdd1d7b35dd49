import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { AppConfig } from '@/config/app-config';
import { FileNotFoundError, LocalFileStore } from './file-store';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/** A stream of `total` pseudo-random bytes in `chunk`-sized pieces, produced lazily (never all in memory). */
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

describe('LocalFileStore', () => {
  let root: string;
  let store: LocalFileStore;
  const key = Buffer.alloc(32, 9);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'lp-files-'));
    store = new LocalFileStore({ storageDir: root, dataEncryptionKey: key } as AppConfig);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const readBack = async (k: string): Promise<Buffer> => readAll(await store.read(k));

  it('round-trips a plain file from a buffer and from a stream, stored as written after its marker', async () => {
    const content = Buffer.from('id,name\n1,Ana\n');
    expect(await store.write('reports/org/a.csv', content)).toEqual({ sizeBytes: content.length });
    expect(await readAll(await store.read('reports/org/a.csv'))).toEqual(content);
    expect(readFileSync(join(root, 'reports/org/a.csv'))).toEqual(Buffer.concat([Buffer.from('LPP1'), content]));
    await store.write('reports/org/b.csv', Readable.from([Buffer.from('a'), Buffer.from('b')]));
    expect((await readAll(await store.read('reports/org/b.csv'))).toString()).toBe('ab');
    expect(statSync(join(root, 'reports/org/a.csv')).mode & 0o777).toBe(0o600);
  });

  it('round-trips an encrypted file, which is not plaintext on disk', async () => {
    const content = Buffer.from('{"email":"ana@example.test","secret":"plain words"}'.repeat(10));
    expect(await store.write('exports/u/x.zip', content, { encrypt: true })).toEqual({ sizeBytes: content.length });
    expect(await readAll(await store.read('exports/u/x.zip'))).toEqual(content);
    const disk = readFileSync(join(root, 'exports/u/x.zip'));
    expect(disk.includes(Buffer.from('ana@example.test'))).toBe(false);
    expect(disk.includes(Buffer.from('plain words'))).toBe(false);
    expect(disk.length).toBe(content.length + 4 + 12 + 16);
    // A new IV each time: the same content never encrypts to the same bytes.
    await store.write('exports/u/y.zip', content, { encrypt: true });
    expect(readFileSync(join(root, 'exports/u/y.zip')).equals(disk)).toBe(false);
  });

  it('round-trips empty files, plain and encrypted', async () => {
    await store.write('e/plain', Buffer.alloc(0));
    await store.write('e/sealed', Buffer.alloc(0), { encrypt: true });
    expect(await readAll(await store.read('e/plain'))).toEqual(Buffer.alloc(0));
    expect(await readAll(await store.read('e/sealed'))).toEqual(Buffer.alloc(0));
  });

  it('streams a large file (24 MB) both ways, plain and encrypted', async () => {
    for (const encrypt of [false, true]) {
      const big = bigStream(24 * 1024 * 1024);
      const stored = await store.write(`big/${String(encrypt)}.bin`, big.stream, { encrypt });
      expect(stored.sizeBytes).toBe(24 * 1024 * 1024);
      const back = await readAll(await store.read(`big/${String(encrypt)}.bin`));
      expect(back.equals(big.digest())).toBe(true);
    }
  }, 60_000);

  it('reads back plain content that happens to start like an encrypted file', async () => {
    const content = Buffer.concat([Buffer.from('LPE1'), randomBytes(100)]);
    await store.write('tricky/plain.bin', content);
    expect(await readAll(await store.read('tricky/plain.bin'))).toEqual(content);
  });

  it('refuses to read a tampered encrypted file', async () => {
    await store.write('t/a.bin', randomBytes(5000), { encrypt: true });
    const path = join(root, 't/a.bin');
    const bytes = readFileSync(path);
    bytes[100] ^= 1;
    writeFileSync(path, bytes);
    await expect(readBack('t/a.bin')).rejects.toThrow(/authenticate/);
  });

  it('refuses to read an encrypted file whose tag was cut off, however short', async () => {
    await store.write('t/b.bin', randomBytes(50), { encrypt: true });
    const path = join(root, 't/b.bin');
    const bytes = readFileSync(path);
    for (const length of [bytes.length - 1, 4 + 12 + 15, 4 + 12, 10]) {
      writeFileSync(path, bytes.subarray(0, length));
      await expect(readBack('t/b.bin')).rejects.toThrow();
    }
  });

  it('refuses a file encrypted under another key', async () => {
    await store.write('k/a.bin', Buffer.from('secret'), { encrypt: true });
    const other = new LocalFileStore({ storageDir: root, dataEncryptionKey: Buffer.alloc(32, 1) } as AppConfig);
    await expect((async () => readAll(await other.read('k/a.bin')))()).rejects.toThrow(/authenticate/);
  });

  it.each([
    '../escape',
    'a/../../escape',
    'a/..',
    './a',
    '/etc/passwd',
    'a//b',
    'a/',
    '',
    '.hidden',
    'a/.hidden',
    'a b',
    'a\\b',
    'a\u0000b',
    'ñ',
    'a:b',
    'C:/x',
    `${'a'.repeat(256)}`,
  ])('refuses the key %j everywhere', async (bad) => {
    await expect(store.write(bad, Buffer.from('x'))).rejects.toThrow(/Invalid file key/);
    await expect(store.read(bad)).rejects.toThrow(/Invalid file key/);
    await expect(store.exists(bad)).rejects.toThrow(/Invalid file key/);
    await expect(store.delete(bad)).rejects.toThrow(/Invalid file key/);
    expect(filesUnder(root)).toEqual([]);
  });

  it('accepts ordinary keys', async () => {
    for (const good of ['a', 'reports/3f2a/r-1.csv', 'x_y-z/A.B.c', 'exports/2026-11/e.zip']) {
      await store.write(good, Buffer.from('x'));
      expect(await store.exists(good)).toBe(true);
    }
  });

  it('refuses to read a file that is not one of the store (no marker)', async () => {
    writeFileSync(join(root, 'foreign'), 'id,name\n');
    await expect(readBack('foreign')).rejects.toThrow(/Not a file of this store/);
  });

  it('deletes idempotently, and a missing file does not exist and cannot be read', async () => {
    await store.write('d/a', Buffer.from('x'));
    await store.delete('d/a');
    await store.delete('d/a');
    await store.delete('d/never');
    expect(await store.exists('d/a')).toBe(false);
    await expect(store.read('d/a')).rejects.toThrow(FileNotFoundError);
  });

  it('a failed write leaves no file and no temporary file, and keeps the previous version', async () => {
    await store.write('w/a.csv', Buffer.from('old'));
    for (const encrypt of [false, true]) {
      let n = 0;
      const failing = new Readable({
        read() {
          n++;
          if (n < 3) this.push(Buffer.alloc(1024, 1));
          else this.destroy(new Error('source failed'));
        },
      });
      await expect(store.write('w/a.csv', failing, { encrypt })).rejects.toThrow('source failed');
      await expect(store.write('w/new.csv', Readable.from(failingAtOnce()), { encrypt })).rejects.toThrow('at once');
    }
    expect(filesUnder(root)).toEqual(['w/a.csv']);
    expect((await readAll(await store.read('w/a.csv'))).toString()).toBe('old');
  });

  it('a reader never sees a half-written file', async () => {
    const big = bigStream(4 * 1024 * 1024);
    const writing = store.write('h/a.bin', big.stream);
    expect(await store.exists('h/a.bin')).toBe(false);
    await writing;
    expect(await store.exists('h/a.bin')).toBe(true);
  });
});

// eslint-disable-next-line require-yield -- a source that fails before its first chunk
async function* failingAtOnce(): AsyncGenerator<Buffer> {
  await Promise.resolve();
  throw new Error('fails at once');
}
