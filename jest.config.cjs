/**
 * Two tiers. The unit tier (`npm run test:unit`, no build needed): `test/<room>/<file>.test.ts` beside
 * `src/<room>/<file>.ts`, over plain objects or test/support/platform.ts. The end-to-end scenarios (`test/e2e/<room>/`,
 * and the other folders) run the built bundle (dist/Code.js) in the Apps Script emulator against the real sandbox
 * over HTTP, or a browser. `npm test` runs both.
 */
const fs = require('node:fs');
const path = require('node:path');

const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.ts$': '<rootDir>/test/support/transform.cjs' },
  testTimeout: 60000,
};
/**
 * The folders whose tests drive Chrome/Chromium. Their project's globalSetup finds the browser once (CHROME_PATH,
 * then the installed one) and, when there is none, stops the run before any test with one message saying how to
 * install one. Jest runs a project's globalSetup only when at least one of its tests is selected.
 */
const BROWSER_TEST_DIRS = ['<rootDir>/test/browser/', '<rootDir>/test/playground/'];
/** What a unit test may not load, however indirectly: the emulator, the sandbox, the bundle, a browser or a process. */
const NOT_UNIT = [
  /^(emulator|sandbox|playground|dist|scripts)(\/|$)/,
  /^test\/support\/(harness|browser)\.ts$/,
];
const UNIT_PACKAGES = /^(node:(fs|path|util|crypto)|@jest\/globals)$/;

/**
 * Whether a file and the test files it imports load only src/ and plain test helpers (type-only imports are erased).
 * Decided from the imports, so a test in a room's folder that drives the emulator stays out of the unit tier.
 */
function loadsOnlyUnits(file, seen = new Set()) {
  if (seen.has(file)) return true;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  for (const [, typeOnly, spec] of text.matchAll(/^import (type )?[^;]*?from '([^']+)'/gms)) {
    if (typeOnly) continue;
    if (!spec.startsWith('.')) {
      if (!UNIT_PACKAGES.test(spec)) return false;
      continue;
    }
    const target = path.resolve(path.dirname(file), spec);
    const rel = path.relative(__dirname, target).split(path.sep).join('/');
    if (NOT_UNIT.some((pattern) => pattern.test(rel) || pattern.test(`${rel}.ts`))) return false;
    if (rel.startsWith('test/') && !loadsOnlyUnits(`${target}.ts`, seen)) return false;
  }
  return true;
}

/** The unit tier: the test files of the folders named as src/'s rooms that load only units. */
const UNIT_TESTS = fs
  .readdirSync(path.join(__dirname, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(__dirname, 'test', entry.name)))
  .flatMap((entry) =>
    fs
      .readdirSync(path.join(__dirname, 'test', entry.name))
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => path.join(__dirname, 'test', entry.name, name)),
  )
  .filter((file) => loadsOnlyUnits(file));

module.exports = {
  /**
   * Four test files at once on a 2-core machine: most tests wait on the sandbox's holds or a browser, and a fourth
   * file fills the cores those waits leave (a fresh clone's whole suite: 338 s at three with ts-jest, 275 s at four
   * with the esbuild transform).
   */
  maxWorkers: 4,
  /**
   * A worker that ended its tests has no handle left (its event loop is empty: its 'exit' event comes 1-43 ms after
   * jest's end message), but on a busy 2-core machine the process itself took 500-740 ms more to go away, past
   * jest's default 500 ms: jest then killed it and printed "A worker process has failed to exit gracefully". A
   * worker with a real leak never exits and is still reported, after this longer wait.
   */
  workerGracefulExitTimeout: 5000,
  testTimeout: 60000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
  projects: [
    {
      ...shared,
      displayName: 'browser',
      roots: BROWSER_TEST_DIRS,
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/browser-setup.mjs',
    },
    {
      ...shared,
      displayName: 'unit',
      testMatch: UNIT_TESTS,
    },
    {
      ...shared,
      displayName: 'node',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...BROWSER_TEST_DIRS, ...UNIT_TESTS],
    },
  ],
};
