/** A day as a person reads it (src/core/day.ts). */
import { dayText } from '../../src/core/day';

test('a counted day reads as its date and month, without a leading zero', () => {
  expect(dayText('2026-11-27')).toBe('27 Nov');
  expect(dayText('2027-01-05')).toBe('5 Jan');
  expect(dayText('2026-12-31')).toBe('31 Dec');
});

test('anything that is not a yyyy-MM-dd day, or names no month, is shown as it is', () => {
  for (const text of ['27 Nov', '2026-13-01', '2026-00-10', '', '2026-1-5']) expect(dayText(text)).toBe(text);
});
