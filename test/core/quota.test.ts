/** Apps Script's daily properties quota, told apart from other errors. */
import { isPropertiesQuotaError, PROPERTIES_QUOTA_MESSAGE } from '../../src/core/quota';

test('the quota error is recognised as Apps Script words it, thrown or as text, in any case', () => {
  expect(isPropertiesQuotaError(new Error('Service invoked too many times for one day: properties.'))).toBe(
    true,
  );
  expect(isPropertiesQuotaError('Exception: Service invoked too many times for one day: properties.')).toBe(
    true,
  );
  expect(isPropertiesQuotaError(new Error('SERVICE INVOKED TOO MANY TIMES FOR ONE DAY: PROPERTIES'))).toBe(
    true,
  );
});

test("other services' daily quotas and other errors are not the properties quota", () => {
  for (const error of [
    new Error('Service invoked too many times for one day: urlfetch.'),
    new Error('Service invoked too many times for one day: email.'),
    new Error('Lock timeout: another process was holding the lock for too long.'),
    'Service invoked too many times in a short time: properties.',
    null,
    undefined,
    42,
  ]) {
    expect(isPropertiesQuotaError(error)).toBe(false);
  }
});

test('the message says nothing was charged and when to try again', () => {
  expect(PROPERTIES_QUOTA_MESSAGE).toContain('Nothing was charged');
  expect(PROPERTIES_QUOTA_MESSAGE).toContain('tomorrow');
});
