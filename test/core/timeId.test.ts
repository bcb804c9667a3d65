/** Ids made of a time and a random part: sortable by time, the random part within its spread. */
import { timeId } from '../../src/core/timeId';

const NOW = Date.UTC(2026, 10, 28, 4);

afterEach(() => {
  jest.restoreAllMocks();
});

test('starts with the time in base 36, then the random part in base 36', () => {
  jest.spyOn(Math, 'random').mockReturnValue(0.5);
  expect(timeId(NOW)).toBe(NOW.toString(36) + (5e8).toString(36));
  expect(timeId(NOW, 36 * 36)).toBe(`${NOW.toString(36)}i0`);
});

test('the random part stays below its spread, even at the top of Math.random', () => {
  jest.spyOn(Math, 'random').mockReturnValue(0.999999999999);
  const id = timeId(NOW, 36);
  expect(id).toBe(`${NOW.toString(36)}z`);
});

test('the smallest random part is one digit: the id is never shorter than the time and a digit', () => {
  jest.spyOn(Math, 'random').mockReturnValue(0);
  expect(timeId(NOW)).toBe(`${NOW.toString(36)}0`);
});

test('two ids of the same time differ in the random part', () => {
  const ids = new Set(Array.from({ length: 50 }, () => timeId(NOW)));
  expect(ids.size).toBeGreaterThan(45);
  for (const id of ids) expect(id.startsWith(NOW.toString(36))).toBe(true);
});

test('a later time sorts after an earlier one (same number of time digits)', () => {
  expect(timeId(NOW + 1000) > timeId(NOW)).toBe(true);
});
