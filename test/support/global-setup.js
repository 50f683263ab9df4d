import { LOCAL_REGION, useLocalCredentials } from '../../local/servers.js';
import { S3RVER_CREDENTIALS, startS3Emulator } from '../../local/s3-emulator.js';

export const TEST_BUCKET = 'test-imports';

/**
 * One S3 emulator for the whole run; each test file starts its own local DynamoDB (support/local.js).
 * @param {{ provide: (key: string, value: unknown) => void }} context
 */
export default async function setup({ provide }) {
  useLocalCredentials();
  const emulator = await startS3Emulator([TEST_BUCKET]);
  provide('localEnv', {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    S3_ENDPOINT: emulator.endpoint,
  });
  return () => emulator.stop();
}
