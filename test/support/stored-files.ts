import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '@/core/files/s3-file-store';
import type { TestApp } from './test-app';

/**
 * The bytes the file store keeps for a key, as they are at rest (the local file, or the S3 object read with a plain
 * client): what an operator of the disk or the bucket would see.
 */
export async function storedBytes(t: TestApp, key: string): Promise<Buffer> {
  const storage = t.config.storage;
  if (storage.driver === 'file') return readFile(join(storage.dir, key));
  const client = s3Client(storage);
  try {
    const objectKey = storage.prefix ? `${storage.prefix}/${key}` : key;
    const res = await client.send(new GetObjectCommand({ Bucket: storage.bucket, Key: objectKey }));
    return Buffer.from(await res.Body!.transformToByteArray());
  } finally {
    client.destroy();
  }
}
