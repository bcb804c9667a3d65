/** bench/README.md's last-run section is what `npm run bench` printed (bench/readme.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { END_MARKER, START_MARKER, withLastRun } from '../../bench/readme';

const run = { date: '2026-11-24T18:00:00.000Z', commit: 'abc1234', seconds: 431.6 };

describe('the last-run section of bench/README.md', () => {
  it('is replaced between its markers by the printed lines; the rest of the file stays', () => {
    const readme = `# Bench\n\nbefore\n${START_MARKER}\nold table\n${END_MARKER}\nafter\n`;
    const next = withLastRun(readme, ['1. 300 rows…  ', 'Targets: 3 met, 0 missed.'], run);
    expect(next).toContain('before\n');
    expect(next).toContain('after\n');
    expect(next).not.toContain('old table');
    expect(next).toContain('on 2026-11-24 (commit abc1234, 432 s)');
    expect(next).toContain('```text\n1. 300 rows…\nTargets: 3 met, 0 missed.\n```');
    // Run again: one section, not two.
    const again = withLastRun(next, ['x'], run);
    expect(again.split(START_MARKER)).toHaveLength(2);
  });

  it('refuses a README without the markers rather than append somewhere', () => {
    expect(() => withLastRun('# Bench\n', ['x'], run)).toThrow(/lacks/);
  });

  it('bench/README.md has the markers', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'bench', 'README.md'), 'utf8');
    expect(readme.indexOf(START_MARKER)).toBeGreaterThan(0);
    expect(readme.indexOf(END_MARKER)).toBeGreaterThan(readme.indexOf(START_MARKER));
  });
});
