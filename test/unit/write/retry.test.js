import { describe, expect, it } from 'vitest';
import { backoffDelay, classifyError } from '../../../src/write/retry.js';

describe('backoffDelay (full jitter)', () => {
  it('stays within [0, min(cap, base * 2^(retry-1)))', () => {
    for (let retry = 1; retry <= 20; retry++) {
      const ceiling = Math.min(1000, 10 * 2 ** (retry - 1));
      expect(backoffDelay(retry, 10, 1000, () => 0)).toBe(0);
      expect(backoffDelay(retry, 10, 1000, () => 0.999999)).toBe(Math.floor(0.999999 * ceiling));
      for (let i = 0; i < 50; i++) {
        const delay = backoffDelay(retry, 10, 1000);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(ceiling);
      }
    }
  });

  it('doubles its ceiling per retry until the cap', () => {
    expect(backoffDelay(1, 25, 5000, () => 0.5)).toBe(12);
    expect(backoffDelay(2, 25, 5000, () => 0.5)).toBe(25);
    expect(backoffDelay(3, 25, 5000, () => 0.5)).toBe(50);
    expect(backoffDelay(30, 25, 5000, () => 0.5)).toBe(2500);
    expect(backoffDelay(1000, 25, 5000, () => 0.5)).toBe(2500);
  });
});

describe('classifyError', () => {
  /** @param {string} name @param {object} [extra] */
  const error = (name, extra = {}) => Object.assign(new Error(name), { name }, extra);
  it.each([
    [error('ProvisionedThroughputExceededException'), 'throttle'],
    [error('ThrottlingException'), 'throttle'],
    [error('RequestLimitExceeded'), 'throttle'],
    [error('ValidationException'), 'invalid'],
    [error('SerializationException'), 'invalid'],
    [error('ItemCollectionSizeLimitExceededException', { $metadata: { httpStatusCode: 400 } }), 'invalid'],
    [error('Error', { code: 'EHOSTUNREACH' }), 'transient'],
    [error('Error', { code: 'ENETUNREACH' }), 'transient'],
    [error('Error', { code: 'ENOTFOUND' }), 'transient'],
    [error('Error', { code: 'EPROTO' }), 'transient'],
    [error('InternalServerError', { $metadata: { httpStatusCode: 500 } }), 'transient'],
    [error('ServiceUnavailable', { $metadata: { httpStatusCode: 503 } }), 'transient'],
    [error('Error', { code: 'ECONNRESET' }), 'transient'],
    [error('TimeoutError'), 'transient'],
    [error('ResourceNotFoundException', { $metadata: { httpStatusCode: 400 } }), 'fatal'],
    [error('AccessDeniedException', { $metadata: { httpStatusCode: 400 } }), 'fatal'],
  ])('%s is %s', (e, kind) => {
    expect(classifyError(e)).toBe(kind);
  });
});
