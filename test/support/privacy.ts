import yauzl from 'yauzl';
import type TestAgent from 'supertest/lib/agent';
import type { Response } from 'supertest';
import { stepUpByEmail, type SignedIn } from './auth';
import type { TestApp } from './test-app';
import { waitUntil } from './wait';

/** The entries of a ZIP as text, by name. */
export function unzip(buffer: Buffer): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const out = new Map<string, string>();
      zip.on('error', reject);
      zip.on('end', () => resolve(out));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** A supertest request whose body is kept as raw bytes. */
export function binary(req: ReturnType<TestAgent['get']>): Promise<Response & { body: Buffer }> {
  return req.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });
}

/** Asks for an export and waits until it is no longer queued or running; returns the export record. */
export async function exportOf(
  _t: TestApp,
  s: SignedIn,
): Promise<{ id: string; status: string; [k: string]: unknown }> {
  const queued = await s.agent.post('/api/v1/me/privacy/exports').expect(202);
  return waitUntil(
    async () => {
      const res = await s.agent.get(`/api/v1/me/privacy/exports/${queued.body.id}`).expect(200);
      return res.body.status === 'queued' || res.body.status === 'running' ? null : res.body;
    },
    { what: 'the export', timeoutMs: 30_000 },
  );
}

/** Downloads an export (with a fresh step-up) and returns its files. */
export async function downloadExport(
  t: TestApp,
  s: SignedIn,
  exportId: string,
): Promise<{ res: Response & { body: Buffer }; files: Map<string, string> }> {
  await stepUpByEmail(t, s);
  const res = await binary(s.agent.get(`/api/v1/me/privacy/exports/${exportId}/download`));
  if (res.status !== 200) throw new Error(`download answered ${res.status}: ${res.body.toString()}`);
  return { res, files: await unzip(res.body) };
}
