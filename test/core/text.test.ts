/** The words every message shares (src/core/text.ts): counts, the hit rate, stops, addresses and the service's words. */
import { countText, hitRateText, quoteService, withoutAddresses, withoutStop } from '../../src/core/text';

test('a count takes the singular for exactly one, the plural (or the one given) otherwise', () => {
  expect(countText(1, 'credit')).toBe('1 credit');
  expect(countText(0, 'row')).toBe('0 rows');
  expect(countText(2, 'entry', 'entries')).toBe('2 entries');
});

test('the hit rate rounds its share, groups thousands, and says 0 % when nothing was looked up', () => {
  expect(hitRateText(15, 12)).toBe('12 of 15 lookups found an address (80 %)');
  expect(hitRateText(3, 2)).toBe('2 of 3 lookups found an address (67 %)');
  expect(hitRateText(1, 1)).toBe('1 of 1 lookup found an address (100 %)');
  expect(hitRateText(0, 0)).toBe('0 of 0 lookups found an address (0 %)');
  expect(hitRateText(1500, 1200)).toBe('1,200 of 1,500 lookups found an address (80 %)');
});

test('a sentence loses its closing stops and spaces, not those inside', () => {
  expect(withoutStop(' The key is wrong... ')).toBe('The key is wrong');
  expect(withoutStop('v1.2 is out')).toBe('v1.2 is out');
});

test('web addresses are left out, with the punctuation that only introduced them', () => {
  expect(withoutAddresses('Upgrade at https://service.example/plans?x=1 today')).toBe('Upgrade at today');
  expect(withoutAddresses('Connection refused: http://127.0.0.1:8787/api/v1/')).toBe('Connection refused');
  expect(withoutAddresses('Failed (wss://host/socket)')).toBe('Failed');
});

test("the service's words are quoted once, without addresses, double quotes or their own stop", () => {
  expect(quoteService('Plan "Pro" needed. See https://service.example/plans.')).toBe(
    ` The service said: "Plan 'Pro' needed. See".`,
  );
  expect(quoteService(undefined)).toBe('');
  expect(quoteService(' . ')).toBe('');
});
