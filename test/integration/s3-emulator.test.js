/**
 * The S3 emulator replaces an object atomically, as S3 does: a GET that overlaps PUTs of the same key
 * (a job's status while its shard updates it) gets one whole version, at once.
 */
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RVER_CREDENTIALS, startS3Emulator } from '../../local/s3-emulator.js';

const BUCKET = 'atomic';
/** @type {Awaited<ReturnType<typeof startS3Emulator>>} */
let emulator;
/** @type {S3Client} */
let s3;
beforeAll(async () => {
  emulator = await startS3Emulator([BUCKET]);
  // One attempt, and a timeout well under the ~6 s a short body used to hang for.
  s3 = new S3Client({ region: 'us-east-1', endpoint: emulator.endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS, maxAttempts: 1, requestHandler: { requestTimeout: 2_000 } });
});
afterAll(async () => {
  s3?.destroy();
  await emulator?.stop();
});

describe('the S3 emulator', () => {
  it('answers each GET that overlaps PUTs of the same key with one whole version', async () => {
    // Versions of different lengths, so a GET that read one's length and another's bytes shows.
    const versions = Array.from({ length: 4 }, (_, i) => `${i}`.repeat(200_000 >> (i * 2)));
    const put = (/** @type {number} */ i) => s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'status.json', Body: versions[i % versions.length] }));
    await put(0);

    let writing = true;
    const writer = (async () => {
      for (let i = 1; i <= 200; i++) await put(i);
    })().finally(() => (writing = false));
    /** @type {string[]} */
    const seen = [];
    while (writing) {
      const output = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'status.json' }));
      seen.push((await output.Body?.transformToString()) ?? '');
    }
    await writer;

    expect(seen.length).toBeGreaterThan(20);
    expect(seen.filter((body) => !versions.includes(body)).map((body) => body.length)).toEqual([]);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual(['status.json']);
  });
});
