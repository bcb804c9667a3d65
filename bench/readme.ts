/**
 * bench/README.md's "The last run" section is written by `npm run bench` (a full run of every scenario): what the
 * run printed, between two markers, with its date, commit and duration. Quick and partial runs leave it alone.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export const START_MARKER = '<!-- bench:last-run:start -->';
export const END_MARKER = '<!-- bench:last-run:end -->';

/** Copies every console.log line of the run into `lines` (as well as printing it). */
export function recordPrinted(lines: string[]): void {
  const log = console.log.bind(console);
  console.log = (...args: unknown[]) => {
    lines.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
    log(...args);
  };
}

/** `readme`'s text with the section between the markers replaced; throws when the markers are missing. */
export function withLastRun(
  readme: string,
  printed: string[],
  run: { date: string; commit: string; seconds: number },
): string {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`bench/README.md lacks ${START_MARKER} … ${END_MARKER}`);
  const body = [
    START_MARKER,
    '',
    `Written by \`npm run bench\` on ${run.date.slice(0, 10)} (commit ${run.commit}, ${Math.round(run.seconds)} s), as it printed:`,
    '',
    '```text',
    ...printed.map((line) => line.replace(/\s+$/, '')),
    '```',
    '',
  ].join('\n');
  return `${readme.slice(0, start)}${body}${readme.slice(end)}`;
}

export function writeLastRun(
  file: string,
  printed: string[],
  run: { date: string; commit: string; seconds: number },
) {
  writeFileSync(file, withLastRun(readFileSync(file, 'utf8'), printed, run));
}
