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

/** Credentials for the test server (any pair is accepted: see `acceptAnyAccessKey`). */
export const S3_TEST_CREDENTIALS = { S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' } as const;

interface S3rverAccounts {
  registry: Map<string, unknown>;
  DUMMY_ACCOUNT: unknown;
}

/**
 * s3rver knows one access key (`S3RVER`) and does not check v4 signatures: any other key id is answered with
 * `InvalidAccessKeyId`. Every key id maps to its built-in account here, so a process configured with any
 * `S3_ACCESS_KEY_ID` (or the test credentials) reaches the server; the SDK still needs some credentials to sign.
 */
function acceptAnyAccessKey(accounts: S3rverAccounts): void {
  const registry = accounts.registry;
  if ((registry as { anyKey?: boolean }).anyKey) return;
  const get = registry.get.bind(registry);
  registry.get = (key: string) => get(key) ?? accounts.DUMMY_ACCOUNT;
  (registry as { anyKey?: boolean }).anyKey = true;
}

export interface S3Server {
  /** The STORAGE_URL of the server's bucket (path-style, loopback endpoint). */
  url: string;
  /**
   * STORAGE_URL and a pair of credentials: spread it into a process's env (the server accepts any pair, but the
   * SDK needs one to sign with; without S3_* it would look for the default chain).
   */
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
  const load = createRequire(__filename);
  const S3rver = load('s3rver') as S3rverClass;
  acceptAnyAccessKey(load('s3rver/lib/models/account') as S3rverAccounts);
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
