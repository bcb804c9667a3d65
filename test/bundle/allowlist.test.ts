/**
 * The URL allowlist through a bundle built for an https service: the manifest's
 * urlFetchWhitelist is fixed at build time, and the bundle knows it, so an API_BASE_URL script property outside it
 * is refused at once, before any fetch, with a message naming the property and the allowlist (the emulator enforces
 * the manifest's allowlist too: without the check, Apps Script's own refusal would read as "could not be reached").
 * Plain http on loopback (the local sandbox) stays allowed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment } from '../../emulator';
import type { ProgressView } from '../e2e/bulk/helpers';
import { startWorld, url, type World } from '../support/harness';
import { AWAIT_SCRIPT_MS, cleanUp, runScript, tempDir } from './scripts';

const out = tempDir('pef-allowlist-');
const built = runScript('build.ts', ['--out', out], {
  guardLog: join(tempDir(), 'refused.txt'),
  env: { API_BASE_URL: 'https://api.example.com/api/v1/' },
});

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});
afterAll(cleanUp);

beforeAll(async () => {
  const result = await built;
  if (result.status !== 0) throw new Error(`build failed: ${result.out}`);
}, AWAIT_SCRIPT_MS);

const REFUSAL =
  'the script property API_BASE_URL ("https://elsewhere.test/api/v1/") is outside the add-on\'s URL allowlist (https://api.example.com/)';

function fetches(env: Environment): number {
  return env.executions.reduce(
    (sum, e) => sum + (e.counts['UrlFetchApp.fetch'] ?? 0) + (e.counts['UrlFetchApp.fetchAll'] ?? 0),
    0,
  );
}

describe('an API_BASE_URL override and the build-time allowlist', () => {
  it('the https build: its manifest allows the build host only', () => {
    const manifest = JSON.parse(readFileSync(join(out, 'appsscript.json'), 'utf8'));
    expect(manifest.urlFetchWhitelist).toEqual(['https://api.example.com/']);
  });

  it('an override outside the allowlist is refused at once: no fetch, a message naming both', async () => {
    world = await startWorld({
      data: [['Profile'], [url('jane-doe')]],
      scriptProperties: { API_BASE_URL: 'https://elsewhere.test/api/v1/' },
      env: { distDir: out },
    });
    const formula = await world.env.execute(
      'FINDEMAIL',
      [url('jane-doe')],
      world.as(undefined, { authMode: 'CUSTOM_FUNCTION' }),
    );
    expect(JSON.stringify(formula.ok ? formula.value : formula.error?.message)).toContain(
      REFUSAL.replace(/"/g, '\\"'),
    );
    const check = (await world.env.run('checkApiKey', [], world.as())) as { ok: boolean; message: string };
    expect(check.ok).toBe(false);
    expect(check.message).toContain(REFUSAL);
    world.env.select(world.ss.id, 'A1:A2');
    const run = (await world.env.run('enrichSelection', [], world.as())) as ProgressView;
    expect(run).toMatchObject({ state: 'stopped', reason: 'configuration' });
    expect(run.message).toContain(REFUSAL);
    // Nothing was even tried: no fetch in any execution, nothing reached the sandbox.
    expect(fetches(world.env)).toBe(0);
    expect(world.sandbox.service.ledger()).toHaveLength(0);
  });

  it('plain http on loopback (the local sandbox) stays allowed under the https build', async () => {
    world = await startWorld({ data: [['Profile'], [url('jane-doe')]], env: { distDir: out } });
    const formula = await world.env.execute(
      'FINDEMAIL',
      [url('jane-doe')],
      world.as(undefined, { authMode: 'CUSTOM_FUNCTION' }),
    );
    expect(formula.ok).toBe(true);
    expect(String(formula.value)).toMatch(/@/);
    expect(world.sandbox.service.ledger()).toHaveLength(1);
  });
});
