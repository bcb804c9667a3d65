/**
 * A cached =FINDEMAIL evaluation costs at most one property call. Formulas take the script
 * properties from the copy in the script cache (src/adapters/scriptConfig.ts), so a cached evaluation reads only
 * the formula buffer (1 call), or nothing when its result is in the results sheet (0); a copy the best-effort
 * cache lost costs one more read, once. Every execution that reads the script properties refreshes the copy: a
 * change reaches bulk runs and the sidebar at once, formulas within SCRIPT_CONFIG_CACHE_SECONDS.
 */

import { cacheCalls, type ExecutionResult, propertyCalls } from '../../../emulator';
import { SCRIPT_CONFIG_CACHE_SECONDS } from '../../../src/core/limits';
import { API_KEY_PROPERTY, SCRIPT_CONFIG_CACHE_KEY, SCRIPT_PROPERTY } from '../../../src/core/propertyNames';
import {
  EDITOR,
  EDITOR_KEY,
  EDITOR_ORG,
  ORG,
  OWNER_KEY,
  SANDBOX_NETWORK_HOSTS,
  startWorld,
  url,
  type World,
} from '../../support/harness';
import { start } from '../bulk/helpers';
import { column, emailOf } from '../formula/helpers';
import { found, seedResultsSheet } from './helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const SCRIPT_PROPERTIES_READ = 'PropertiesService.getScriptProperties';

/** Evaluates the spreadsheet's one formula; returns its execution. */
async function evaluate(w: World, user?: string): Promise<ExecutionResult> {
  const report = await w.env.recalculate(w.ss.id, { user });
  expect(report.results).toHaveLength(1);
  return report.results[0];
}

function loseCachedConfig(w: World): void {
  w.env.scriptCache.remove([SCRIPT_CONFIG_CACHE_KEY]);
}

describe('a cached =FINDEMAIL evaluation', () => {
  it('costs 1 property call from the buffer, 0 from the results sheet; a lost configuration copy 1 more, once', async () => {
    const person = url('cora-best');
    world = await startWorld({ data: [[person]] });
    world.env.enter(world.ss.id, 'B1', [['=FINDEMAIL(A1)']]);
    // The first evaluation pays; no execution has read the script properties yet: it reads them, and caches them.
    const paid = await evaluate(world);
    expect(paid.counts[SCRIPT_PROPERTIES_READ]).toBe(1);
    expect(column(world, 'B1:B1')).toEqual([emailOf(person)]);

    // The result waits in the buffer (document properties): one read.
    const fromBuffer = await evaluate(world);
    expect(column(world, 'B1:B1')).toEqual([emailOf(person)]);
    expect(propertyCalls(fromBuffer.counts)).toBe(1);
    expect(fromBuffer.counts[SCRIPT_PROPERTIES_READ]).toBeUndefined();
    // The cache lost the configuration: the script properties are read again (2), and cached again (1 after).
    loseCachedConfig(world);
    expect(propertyCalls((await evaluate(world)).counts)).toBe(2);
    expect(propertyCalls((await evaluate(world)).counts)).toBe(1);

    // The sidebar opens (a writing execution): the buffer moves into the results sheet.
    await world.env.run('getSidebarState', [], world.as());
    const fromSheet = await evaluate(world);
    expect(column(world, 'B1:B1')).toEqual([emailOf(person)]);
    expect(propertyCalls(fromSheet.counts)).toBe(0);
    loseCachedConfig(world);
    expect(propertyCalls((await evaluate(world)).counts)).toBe(1);
    expect(propertyCalls((await evaluate(world)).counts)).toBe(0);
    expect(world.sandbox.service.totalCharged()).toBe(1);
  });

  it('with a best-effort cache: one more property call exactly when the configuration copy was lost', async () => {
    const inSheet = url('dale-ford');
    const inBuffer = url('edna-gray');
    world = await startWorld({
      data: [[inSheet], [inBuffer]],
      env: { cacheEviction: { probability: 0.3, seed: 11 } },
    });
    seedResultsSheet(world, [[inSheet, found('dale@kept.test')]]);
    world.env.enter(world.ss.id, 'B1', [['=FINDEMAIL(A1)']]);
    world.env.enter(world.ss.id, 'B2', [['=FINDEMAIL(A2)']]);
    await world.env.recalculate(world.ss.id, { cells: [{ a1: 'B2' }] });
    expect(column(world, 'B2:B2')).toEqual([emailOf(inBuffer)]);

    const evaluations = 40;
    const lost = { sheet: 0, buffer: 0 };
    for (let i = 0; i < evaluations; i++) {
      for (const [cell, kept, reads] of [
        ['B1', 'sheet', 0],
        ['B2', 'buffer', 1],
      ] as const) {
        const report = await world.env.recalculate(world.ss.id, { cells: [{ a1: cell }] });
        const counts = report.results[0].counts;
        // The copy is put back only when it was missing (the formula read the properties then).
        const missed = counts['Cache.put'] ?? 0;
        expect(missed).toBeLessThanOrEqual(1);
        expect(counts[SCRIPT_PROPERTIES_READ] ?? 0).toBe(missed);
        expect(propertyCalls(counts)).toBe(reads + missed);
        lost[kept] += missed;
      }
      expect(column(world, 'B1:B2')).toEqual(['dale@kept.test', emailOf(inBuffer)]);
    }
    // Per 1,000 cached evaluations: 1,000 x the loss rate from the sheet, 1,000 more from the buffer.
    expect(lost.sheet).toBeGreaterThan(0);
    expect(lost.sheet).toBeLessThan(evaluations);
    expect(lost.buffer).toBeGreaterThan(0);
    expect(world.sandbox.service.totalCharged()).toBe(1);
  });
});

describe('a script-property change', () => {
  it('reaches the sidebar and a bulk run at once, formulas within the cache time (or at the next heavy execution)', async () => {
    const people = [url('fay-hill'), url('gus-ives'), url('hal-jay')];
    world = await startWorld({
      data: people.map((person) => [person]),
      scriptProperties: { ENRICH_BATCH_SIZE: '1', ENRICH_STEP_BUDGET_MS: '1' },
    });
    world.env.enter(world.ss.id, 'H1', [['=FINDEMAIL(A1)']]);
    await evaluate(world);
    expect(column(world, 'H1:H1')).toEqual([emailOf(people[0])]);

    // The operator narrows NETWORK_HOSTS. Formulas keep the cached copy for up to SCRIPT_CONFIG_CACHE_SECONDS...
    world.env.scriptProperties.set({ [SCRIPT_PROPERTY.networkHosts]: 'elsewhere.test' });
    await evaluate(world);
    expect(column(world, 'H1:H1')).toEqual([emailOf(people[0])]);
    // ...and see the change once it expired.
    world.env.advanceClock((SCRIPT_CONFIG_CACHE_SECONDS + 1) * 1000);
    await evaluate(world);
    expect(String(column(world, 'H1:H1')[0])).toMatch(/^INVALID_URL: .*not a profile URL of elsewhere\.test/);

    // Back to the sandbox's network: the sidebar reads the properties at once and refreshes the copy, so
    // formulas see the change at once too.
    world.env.scriptProperties.set({ [SCRIPT_PROPERTY.networkHosts]: SANDBOX_NETWORK_HOSTS });
    await evaluate(world);
    expect(String(column(world, 'H1:H1')[0])).toMatch(/^INVALID_URL/);
    world.env.scriptProperties.set({ [SCRIPT_PROPERTY.apiBaseUrl]: 'ftp://api.example.com/' });
    const sidebar = (await world.env.run('getSidebarState', [], world.as())) as { configError: string };
    expect(sidebar.configError).toMatch(/must be an https:\/\/ URL/);
    world.env.scriptProperties.set({ [SCRIPT_PROPERTY.apiBaseUrl]: world.sandbox.baseUrl });
    expect(await world.env.run('getSidebarState', [], world.as())).toMatchObject({ configError: '' });
    await evaluate(world);
    expect(column(world, 'H1:H1')).toEqual([emailOf(people[0])]);

    // A bulk run: each slice reads the properties, so the next slice after a change follows it.
    let progress = await start(world, 'A1:A3');
    expect(progress.state).toBe('running');
    const sentBefore = world.sandbox.service.ledger().length;
    world.env.scriptProperties.set({ [SCRIPT_PROPERTY.apiBaseUrl]: `${world.sandbox.origin}/api/v2/` });
    // The next slices (a slice of 1 ms works one window: the first row's is known, it sends nothing).
    for (let slice = 0; slice < 3 && world.sandbox.service.ledger().length === sentBefore; slice++)
      progress = (await world.env.run('continueEnrichment', [], world.as())) as typeof progress;
    const sentAfter = world.sandbox.service.ledger().slice(sentBefore);
    expect(sentAfter.length).toBeGreaterThan(0);
    expect(sentAfter.every((entry) => entry.path === '/api/v2/network_finder')).toBe(true);
  });
});

describe('the script cache is shared by every user and document', () => {
  it("an editor's execution caches the configuration; a formula uses it and still only the owner's key", async () => {
    const person = url('ida-kent');
    world = await startWorld({
      data: [[person]],
      scriptProperties: { UNRELATED_SECRET: 'operator-secret-123' },
    });
    world.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
    world.env.enter(world.ss.id, 'B1', [['=FINDEMAIL(A1)']]);
    // The editor opens the sidebar: it reads the script properties and leaves the copy in the script cache.
    const sidebar = await world.env.execute('getSidebarState', [], world.as(EDITOR));
    expect(sidebar.ok).toBe(true);
    expect(sidebar.counts[SCRIPT_PROPERTIES_READ]).toBe(1);
    const copy = world.env.scriptCache.dump(world.env.now()).get(SCRIPT_CONFIG_CACHE_KEY)?.value;
    // Only the add-on's own script properties (the ones set), never a key or another property.
    expect(Object.keys(JSON.parse(copy ?? '{}')).sort()).toEqual(['API_BASE_URL', 'NETWORK_HOSTS']);
    for (const secret of [OWNER_KEY, EDITOR_KEY, 'operator-secret-123']) expect(copy).not.toContain(secret);

    // The formula, evaluated as the editor views the sheet: the configuration from the cache, no script
    // properties read; the lookup paid with the owner's key.
    const formula = await evaluate(world, EDITOR);
    expect(formula.user).toBe(EDITOR);
    expect(formula.counts[SCRIPT_PROPERTIES_READ]).toBeUndefined();
    expect(cacheCalls(formula.counts)).toBeGreaterThan(0);
    expect(column(world, 'B1:B1')).toEqual([emailOf(person)]);
    const ledger = world.sandbox.service.ledger();
    expect(ledger.length).toBeGreaterThan(0);
    expect(ledger.every((entry) => entry.organization === ORG)).toBe(true);
    expect(world.sandbox.service.credits(EDITOR_ORG)).toBe(1000);
  });
});
