/** The lost-answer marks' encoding (src/store/lostMarks.ts), on plain strings: counts, expiry, the cap, bad input. */
import { LOST_MARK_MS, MAX_LOST_MARKS } from '../../src/core/limits';
import { heldByLostMarks, lostMarksOf, lostSendsOf, withLostSends } from '../../src/store/lostMarks';

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const ANN = 'linkedin.com/in/ann';
const BOB = 'linkedin.com/in/bob';

test('each lost send adds one to its profile only, and the mark counts for LOST_MARK_MS from the last', () => {
  let raw = withLostSends('', [ANN], NOW);
  raw = withLostSends(raw, [ANN, BOB], NOW + 60_000);
  expect(lostSendsOf(raw, [ANN, BOB, 'linkedin.com/in/cy'], NOW + 120_000)).toEqual(
    new Map([
      [ANN, 2],
      [BOB, 1],
    ]),
  );
  const until = lostMarksOf(raw, [ANN], NOW + 60_000).get(ANN)?.until ?? 0;
  expect(until).toBeGreaterThanOrEqual(NOW + 60_000 + LOST_MARK_MS - 60_000);
  expect(until).toBeLessThanOrEqual(NOW + 60_000 + LOST_MARK_MS + 60_000);
  expect(lostSendsOf(raw, [ANN], until - 60_000).get(ANN)).toBe(2);
  expect(lostSendsOf(raw, [ANN], until).size).toBe(0);
});

test('a mark that ended is pruned by the next write, and its count starts again', () => {
  const old = withLostSends('', [ANN, BOB], NOW);
  const later = NOW + LOST_MARK_MS + 120_000;
  const raw = withLostSends(old, [BOB], later);
  expect(raw.length).toBe(old.length / 2);
  expect(lostSendsOf(raw, [ANN, BOB], later)).toEqual(new Map([[BOB, 1]]));
});

test('the count stops at 9: one digit per mark', () => {
  let raw = '';
  for (let i = 0; i < 12; i++) raw = withLostSends(raw, [ANN], NOW);
  expect(lostSendsOf(raw, [ANN], NOW).get(ANN)).toBe(9);
  expect(raw.length).toBe(withLostSends('', [ANN], NOW).length);
});

test('past MAX_LOST_MARKS the marks that end first are dropped, never the newest', () => {
  const first = Array.from({ length: MAX_LOST_MARKS }, (_, i) => `linkedin.com/in/first-${i}`);
  const raw = withLostSends(withLostSends('', first, NOW), [ANN], NOW + 60_000);
  expect(lostSendsOf(raw, [...first, ANN], NOW + 60_000).size).toBe(MAX_LOST_MARKS);
  expect(lostSendsOf(raw, [ANN], NOW + 60_000).get(ANN)).toBe(1);
});

test('a malformed value counts nothing and is dropped by the next write', () => {
  for (const bad of ['garbage', 'x'.repeat(21), `${'0'.repeat(14)}0zzzzzz`]) {
    expect(lostSendsOf(bad, [ANN], NOW).size).toBe(0);
    expect(lostSendsOf(withLostSends(bad, [ANN], NOW), [ANN], NOW)).toEqual(new Map([[ANN, 1]]));
  }
  expect(lostSendsOf(undefined, [ANN], NOW).size).toBe(0);
});

test('a retry holds back the profiles lost at least the given number of times, until their mark ends', () => {
  const raw = withLostSends(withLostSends('', [ANN, BOB], NOW), [ANN], NOW);
  const held = heldByLostMarks(raw, [ANN, BOB], 2, NOW);
  expect([...held.keys()]).toEqual([ANN]);
  expect(held.get(ANN)).toBe(lostMarksOf(raw, [ANN], NOW).get(ANN)?.until);
  expect(heldByLostMarks(raw, [ANN, BOB], 1, NOW).size).toBe(2);
});
