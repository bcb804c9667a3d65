/**
 * The browser finder (test/support/find-browser.mjs) and the stop of the browser tests when there is no browser:
 * Jest's browser project ends the run before any test, with one message saying how to install one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const FINDER = join(__dirname, 'find-browser.mjs');
const MISSING = join(ROOT, 'no-such-browser', 'chrome');

function find(env: Record<string, string>) {
  return spawnSync(process.execPath, [FINDER], { encoding: 'utf8', env: { ...process.env, ...env } });
}

test('CHROME_PATH comes first, whatever is installed', () => {
  // Any executable file stands in for a browser here: the finder only locates it.
  const run = find({ CHROME_PATH: process.execPath });
  expect(run.status).toBe(0);
  expect(run.stdout.trim()).toBe(process.execPath);
});

test('a CHROME_PATH that is not an executable file is refused with the install help', () => {
  const run = find({ CHROME_PATH: MISSING });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain(`The browser tests' CHROME_PATH, "${MISSING}", is not an executable file.`);
  expect(run.stderr).toContain('sudo apt-get install chromium');
  expect(run.stderr).toContain('brew install --cask google-chrome');
  expect(run.stderr).toContain('winget install Google.Chrome');
});

test('without a browser the browser tests stop before any test, with the message once', async () => {
  const jest = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--selectProjects', 'browser'],
    { cwd: ROOT, env: { ...process.env, CHROME_PATH: MISSING } },
  );
  let out = '';
  jest.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  jest.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const status = await new Promise<number | null>((resolve) => jest.on('close', resolve));
  expect(status).not.toBe(0);
  expect(out.split('is not an executable file.')).toHaveLength(2);
  expect(out).toContain('Install one, or point CHROME_PATH at its executable:');
  // No test file started: Jest reports no suite and no test.
  expect(out).not.toMatch(/PASS|FAIL|Tests:/);
}, 120_000);
