/**
 * The limits (src/core/limits.ts) the sidebar's number fields also state in HTML (src/sidebar/Sidebar.html): a
 * field that offers another default or bound than the server takes would refuse, or promise, what the other does not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_WATCH_LIMIT,
  MAX_START_AT_ONCE_UNDER,
  MAX_WATCH_LIMIT,
  TRIAL_PROFILES,
} from '../../src/core/limits';

const HTML = readFileSync(join(__dirname, '../../src/sidebar/Sidebar.html'), 'utf8');

/** The attributes of the input element whose id is `id`. */
function field(id: string): Record<string, string> {
  const tag = new RegExp(`<input[^>]*\\bid="${id}"[^>]*>`).exec(HTML)?.[0];
  if (!tag) throw new Error(`Sidebar.html has no input #${id}`);
  return Object.fromEntries(
    [...tag.matchAll(/([a-z-]+)="([^"]*)"/gi)].map(([, name, value]) => [name, value]),
  );
}

test("the Watch tab's daily limit offers DEFAULT_WATCH_LIMIT and takes up to MAX_WATCH_LIMIT", () => {
  expect(Number(field('watch-limit').value)).toBe(DEFAULT_WATCH_LIMIT);
  expect(Number(field('watch-limit').max)).toBe(MAX_WATCH_LIMIT);
});

test("the Settings tab's 'start at once under' takes up to MAX_START_AT_ONCE_UNDER", () => {
  expect(Number(field('start-under').max)).toBe(MAX_START_AT_ONCE_UNDER);
});

test("the plan's trial button names TRIAL_PROFILES, the profiles the trial looks up", () => {
  const label = /<button[^>]*\bid="plan-trial"[^>]*>([^<]*)<\/button>/.exec(HTML)?.[1];
  expect(label).toBe(`Try ${TRIAL_PROFILES} rows first`);
});
