/**
 * A dialog is never shown while the document lock is held (src/adapters/ui.ts): `Ui.alert` suspends the script and
 * "LockService locks don't persist across the suspension" (apps-script/reference/base/ui), so another execution would
 * come in half-way through the work the lock guards. The adapters bundled alone and run in the emulator, whose
 * alerts drop the execution's locks as Apps Script does.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { Environment } from '../../emulator';

const ROOT = join(__dirname, '..', '..');

let dir = '';
let env: Environment | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pef-dialogs-'));
  const bundle = buildSync({
    stdin: {
      contents: [
        "export { confirm } from './src/adapters/ui';",
        "export { documentLock } from './src/adapters/lock';",
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    globalName: 'Adapters',
    target: 'es2020',
    define: { __PRIVACY_URL__: '""' },
    write: false,
  });
  const runner = `
function askOutside() { return Adapters.confirm('Go on?'); }
function askHoldingTheLock() {
  try {
    Adapters.documentLock.with(function () { return Adapters.confirm('Go on?'); });
    return 'asked';
  } catch (e) {
    return e.message;
  }
}`;
  writeFileSync(join(dir, 'Code.js'), `${bundle.outputFiles[0].text}\n${runner}`);
});

afterEach(async () => {
  await env?.close();
  env = undefined;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a question is asked when no lock is held, and refused while the document lock is', async () => {
  env = new Environment({ distDir: dir });
  const ss = env.createSpreadsheet({ owner: 'owner@example.com' });
  env.ui.answers.push({ button: 'YES' });
  await expect(env.run('askOutside', [], { spreadsheetId: ss.id })).resolves.toBe(true);
  expect(env.ui.alerts).toHaveLength(1);
  await expect(env.run('askHoldingTheLock', [], { spreadsheetId: ss.id })).resolves.toBe(
    'A dialog cannot be shown while the document lock is held.',
  );
  // Nothing was shown: the question never reached the person.
  expect(env.ui.alerts).toHaveLength(1);
});
