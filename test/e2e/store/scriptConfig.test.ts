/**
 * The script properties are read by each execution: a change reaches formulas, the sidebar and a bulk run at once;
 * a formula evaluated as an editor views the sheet pays with the owner's key.
 */
import type { ExecutionResult } from '../../../emulator';
import { API_KEY_PROPERTY, SCRIPT_PROPERTY } from '../../../src/core/propertyNames';
import {
  EDITOR,
  EDITOR_KEY,
  EDITOR_ORG,
  ORG,
  SANDBOX_NETWORK_HOSTS,
  startWorld,
  url,
  type World,
} from '../../support/harness';
import { start } from '../bulk/helpers';
import { column, emailOf } from '../formula/helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Evaluates the spreadsheet's one formula; returns its execution. */
async function evaluate(w: World, user?: string): Promise<ExecutionResult> {
  const report = await w.env.recalculate(w.ss.id, { user });
  expect(report.results).toHaveLength(1);
  return report.results[0];
}

describe('a script-property change', () => {
  it('reaches formulas, the sidebar and a bulk run at once', async () => {
    const people = [url('fay-hill'), url('gus-ives'), url('hal-jay')];
    world = await startWorld({
      data: people.map((person) => [person]),
      scriptProperties: { ENRICH_BATCH_SIZE: '1', ENRICH_STEP_BUDGET_MS: '1' },
    });
    world.env.enter(world.ss.id, 'H1', [['=FINDEMAIL(A1)']]);
    await evaluate(world);
    expect(column(world, 'H1:H1')).toEqual([emailOf(people[0])]);

    // The operator narrows NETWORK_HOSTS: the next evaluation follows it.
    world.env.scriptProperties.set({ [SCRIPT_PROPERTY.networkHosts]: 'elsewhere.test' });
    await evaluate(world);
    expect(String(column(world, 'H1:H1')[0])).toMatch(/^INVALID_URL: .*not a profile URL of elsewhere\.test/);
    world.env.scriptProperties.set({ [SCRIPT_PROPERTY.networkHosts]: SANDBOX_NETWORK_HOSTS });
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

describe('a formula evaluated as an editor views the sheet', () => {
  it("pays with the owner's key, never the editor's", async () => {
    const person = url('ida-kent');
    world = await startWorld({ data: [[person]] });
    world.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
    world.env.enter(world.ss.id, 'B1', [['=FINDEMAIL(A1)']]);
    const formula = await evaluate(world, EDITOR);
    expect(formula.user).toBe(EDITOR);
    expect(column(world, 'B1:B1')).toEqual([emailOf(person)]);
    const ledger = world.sandbox.service.ledger();
    expect(ledger.length).toBeGreaterThan(0);
    expect(ledger.every((entry) => entry.organization === ORG)).toBe(true);
    expect(world.sandbox.service.credits(EDITOR_ORG)).toBe(1000);
  });
});
