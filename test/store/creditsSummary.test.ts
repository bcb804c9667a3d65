/** The Credits tab's sums (src/store/creditsSummary.ts): "today" is the spreadsheet's day, as the daily limits count. */
import { CREDITS_HEADER } from '../../src/store/credits';
import { summarizeCredits } from '../../src/store/creditsSummary';

const dayIn = (hours: number) => (ms: number) =>
  new Date(ms + hours * 3600 * 1000).toISOString().slice(0, 10);

/** A charge row of the log at `at`, paid by a run. */
function charge(at: number, n: number): unknown[] {
  const row: unknown[] = CREDITS_HEADER.map(() => '');
  row[0] = new Date(at);
  row[1] = 'run';
  row[2] = 'owner@example.com';
  row[3] = 'p1';
  row[4] = `https://www.linkedin.com/in/person-${n}`;
  row[5] = 'found';
  row[6] = 'run r1 · Leads!A2:A9';
  return row;
}

test('today counts the charges since midnight in the spreadsheet’s time zone, and names that day', () => {
  const now = Date.UTC(2026, 10, 28, 1, 30);
  // 20:00 UTC on the 27th: yesterday in UTC, today 10 hours ahead of it (06:00 on the 28th).
  const rows = [charge(Date.UTC(2026, 10, 27, 20), 1), charge(Date.UTC(2026, 10, 28, 1), 2)];
  const utc = summarizeCredits(rows, now, '', dayIn(0));
  const ahead = summarizeCredits(rows, now, '', dayIn(10));
  expect(utc.total).toBe(2);
  expect([utc.today, utc.day]).toEqual([1, '2026-11-28']);
  expect([ahead.today, ahead.day]).toEqual([2, '2026-11-28']);
  // 5 hours behind, it is still the 27th: both charges are of that day.
  expect(summarizeCredits(rows, now, '', dayIn(-5))).toMatchObject({ today: 2, day: '2026-11-27' });
});
