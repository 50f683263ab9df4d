import { describe, expect, it } from 'vitest';
import { JobError } from '../../../src/errors.js';
import { invokeSelf, MAX_ASYNC_PAYLOAD_BYTES } from '../../../src/dispatch/continuation.js';

describe('invokeSelf', () => {
  // Nothing listens on port 9 of the loopback: a payload that were sent would fail with ECONNREFUSED.
  const config = { region: 'us-east-1', lambdaEndpoint: 'http://127.0.0.1:9' };
  const arn = 'arn:aws:lambda:us-east-1:123456789012:function:f';

  it('refuses a payload over the asynchronous limit before sending it, and says what takes the room', async () => {
    const header = Array.from({ length: 40_000 }, (_, i) => `a_rather_long_column_name_${i}`);
    const payload = { bucket: 'b', key: 'k', checkpoint: { jobId: 'j', header } };
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeGreaterThan(MAX_ASYNC_PAYLOAD_BYTES);
    const failure = await invokeSelf(config, arn, payload).catch((/** @type {Error} */ error) => error);
    expect(failure).toBeInstanceOf(JobError);
    expect(String(failure)).toMatch(/the payload to continue the job is \d+ bytes, over the 1000000 an asynchronous invocation may carry \(the header takes \d+\)/);
  });

  it('sends a payload within the limit (and fails here only because nothing listens)', async () => {
    const failure = await invokeSelf(config, arn, { bucket: 'b', key: 'k' }).catch((/** @type {Error} */ error) => error);
    expect(String(failure)).toMatch(/could not invoke .* to continue the job/);
  });
});
