import { LOCAL_REGION, useLocalCredentials } from '../../local/servers.js';
import { S3RVER_CREDENTIALS, startS3Emulator } from '../../local/s3-emulator.js';
import { packagedTemplate, TEST_STACK } from './iam/packaged-template.js';
import { principalsOf } from './iam/principals.js';

export const TEST_BUCKET = 'test-imports';

/**
 * One S3 emulator for the whole run; each test file starts its own local DynamoDB (support/local.js).
 * The IAM gate's principals come from the template `sls package` builds for the demo stack whose bucket
 * is the test bucket (stage `test`): packaged once, then kept until serverless.yml or deploy/ changes.
 * @param {{ provide: (key: string, value: unknown) => void }} context
 */
export default async function setup({ provide }) {
  useLocalCredentials();
  const [emulator, template] = await Promise.all([startS3Emulator([TEST_BUCKET]), packagedTemplate({ bucket: TEST_BUCKET })]);
  provide('localEnv', {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    S3_ENDPOINT: emulator.endpoint,
  });
  provide('iamPrincipals', principalsOf(template, { account: TEST_STACK.account, region: TEST_STACK.region, stack: `${TEST_STACK.service}-${TEST_STACK.stage}`, outputBucket: TEST_BUCKET }));
  return () => emulator.stop();
}
