/** A day as a person reads it (src/core/day.ts). */
import { dayText, startOfDay } from '../../src/core/day';

test('a counted day reads as its date and month, without a leading zero', () => {
  expect(dayText('2026-11-27')).toBe('27 Nov');
  expect(dayText('2027-01-05')).toBe('5 Jan');
  expect(dayText('2026-12-31')).toBe('31 Dec');
});

test('anything that is not a yyyy-MM-dd day, or names no month, is shown as it is', () => {
  for (const text of ['27 Nov', '2026-13-01', '2026-00-10', '', '2026-1-5']) expect(dayText(text)).toBe(text);
});

/** The day of a time in a zone `hours` ahead of UTC (negative: behind). */
const dayIn = (hours: number) => (ms: number) =>
  new Date(ms + hours * 3600 * 1000).toISOString().slice(0, 10);

test("a day starts at the zone's midnight, not UTC's", () => {
  const now = Date.UTC(2026, 10, 28, 1, 30);
  expect(startOfDay(now, dayIn(0))).toBe(Date.UTC(2026, 10, 28));
  // 10 hours ahead, 01:30 UTC is 11:30 on the 28th, which began at 14:00 UTC on the 27th.
  expect(startOfDay(now, dayIn(10))).toBe(Date.UTC(2026, 10, 27, 14));
  // 5 hours behind, 01:30 UTC is 20:30 on the 27th, which began at 05:00 UTC on the 27th.
  expect(startOfDay(now, dayIn(-5))).toBe(Date.UTC(2026, 10, 27, 5));
  // At the first millisecond of a day, that millisecond.
  expect(startOfDay(Date.UTC(2026, 10, 28), dayIn(0))).toBe(Date.UTC(2026, 10, 28));
});
