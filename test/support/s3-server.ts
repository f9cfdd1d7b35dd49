import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

/** The few members of s3rver (no type definitions ship with it) used here. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

/** s3rver's built-in account: it checks the signature's access key against it. */
export const S3_TEST_CREDENTIALS = { S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' } as const;

export interface S3Server {
  /** The STORAGE_URL of the server's bucket (path-style, loopback endpoint). */
  url: string;
  /** STORAGE_URL and the credentials the server accepts: spread it into a test app's env. */
  env: { STORAGE_URL: string; S3_ACCESS_KEY_ID: string; S3_SECRET_ACCESS_KEY: string };
  /** The bucket's name and the folder where the server keeps its objects. */
  bucket: string;
  directory: string;
  stop(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver) on loopback: an ephemeral port, a temporary folder, one bucket, path-style
 * requests. One per test file (or per process group sharing files): the application reaches it through
 * STORAGE_URL exactly as it would reach S3.
 */
export async function startS3Server(options: { bucket?: string; prefix?: string } = {}): Promise<S3Server> {
  const S3rver = createRequire(__filename)('s3rver') as S3rverClass;
  const directory = mkdtempSync(join(tmpdir(), 'lp-s3-'));
  const bucket = options.bucket ?? 'lp-test';
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const prefix = options.prefix ? `/${options.prefix}` : '';
  const endpoint = encodeURIComponent(`http://127.0.0.1:${port}`);
  const url = `s3://${bucket}${prefix}?region=us-east-1&endpoint=${endpoint}&force_path_style=true`;
  let stopped = false;
  return {
    url,
    env: { STORAGE_URL: url, ...S3_TEST_CREDENTIALS },
    bucket,
    directory,
    async stop() {
      if (stopped) return;
      stopped = true;
      server.httpServer?.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
