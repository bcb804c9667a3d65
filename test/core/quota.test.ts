/** Apps Script's properties quotas, told apart from other errors. */
import {
  isPropertiesQuotaError,
  PROPERTIES_QUOTA_MESSAGE,
  propertiesQuotaMessage,
} from '../../src/core/quota';

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

test('the daily quota as reported ("graphite property writes") is the properties quota', () => {
  const error = new Error('Service invoked too many times for one day: graphite property writes.');
  expect(isPropertiesQuotaError(error)).toBe(true);
  expect(isPropertiesQuotaError(`Exception: ${error.message}`)).toBe(true);
  expect(propertiesQuotaMessage(error)).toBe(PROPERTIES_QUOTA_MESSAGE);
});

test('too many property calls in a short time is a properties quota too, told as a moment', () => {
  const error = new Error(
    'Service invoked too many times in a short time: properties. Try Utilities.sleep(1000) between calls.',
  );
  expect(isPropertiesQuotaError(error)).toBe(true);
  expect(isPropertiesQuotaError('Service invoked too many times in a short time: properties.')).toBe(true);
  const message = propertiesQuotaMessage(error);
  expect(message).not.toBe(PROPERTIES_QUOTA_MESSAGE);
  expect(message).toContain('Nothing was charged');
  expect(message).toContain('in a minute');
  expect(message).not.toContain('tomorrow');
});

test('the daily properties quota is told as the daily limit, whatever its wording', () => {
  for (const error of [
    new Error('Service invoked too many times for one day: properties.'),
    'Exception: Service invoked too many times for one day: graphite property writes.',
  ]) {
    expect(propertiesQuotaMessage(error)).toBe(PROPERTIES_QUOTA_MESSAGE);
  }
});

test("other services' quotas and other errors are not the properties quota", () => {
  for (const error of [
    new Error('Service invoked too many times for one day: urlfetch.'),
    new Error('Service invoked too many times for one day: email.'),
    new Error('Service invoked too many times in a short time: urlfetch.'),
    new Error('Lock timeout: another process was holding the lock for too long.'),
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
