/**
 * Settings › Remove this spreadsheet's add-on data, in the emulator with the sandbox: after it, no hidden sheet, no
 * `pef.` document property and no trigger of the add-on's for the spreadsheet; the person's cells and an exported
 * credits log stay. Two users: an editor who is not the watch's creator is told whose triggers remain, and they go
 * when they next run. Refused while a run is at work, a slice of a stopped run still holds it, or a formula is
 * sending. What =FINDEMAIL spent today stays, so an editor's removal gives formulas no second daily limit.
 */
import type {
  CreditsExport,
  CreditsSummary,
  DataRemovalPlan,
  DataRemovalResult,
  WatchStart,
} from '../../src/api';
import { REQUEST_OUTLIVES_MS } from '../../src/core/limits';
import { CREDITS_SHEET, RESULTS_SHEET } from '../../src/core/propertyNames';
import { EDITOR, OWNER, startWorld, url, type World } from '../support/harness';
import { drive, start } from './bulk/helpers';

jest.setTimeout(120_000);

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const PROFILES = [url('jane-doe'), url('john-smith'), url('ada-lovelace')];

const sheetNames = (w: World) => w.ss.sheets.map((sheet) => sheet.name);
const addonProperties = (w: World) =>
  w.env
    .documentProperties(w.ss.id)
    .keys()
    .filter((key) => key.startsWith('pef.'));
const triggersOf = (w: World) => w.env.triggers.filter((t) => t.spreadsheetId === w.ss.id);

/** A new world whose run over PROFILES is done: its document properties, the time, and the stored job. */
async function finishedRun() {
  world = await startWorld({ data: [['Profile URL'], ...PROFILES.map((p) => [p])] });
  await start(world, 'A1:A4');
  expect((await drive(world)).state).toBe('done');
  const props = world.env.documentProperties(world.ss.id);
  const now = Date.now();
  const job = JSON.parse(props.get('pef.job') as string);
  return { world, props, now, job };
}

async function startWatch(w: World, user: string): Promise<WatchStart> {
  w.env.select(w.ss.id, 'A1');
  return (await w.env.run('startWatch', [{ limit: 5 }], w.as(user))) as WatchStart;
}

async function exportLog(w: World): Promise<CreditsExport> {
  let step = (await w.env.run('exportCreditsLog', [{}], w.as())) as CreditsExport;
  for (let n = 0; !step.done && n < 10; n++)
    step = (await w.env.run('exportCreditsLog', [step], w.as())) as CreditsExport;
  return step;
}

describe("removing this spreadsheet's add-on data", () => {
  it('leaves no hidden sheet, no pef. property and no trigger; cells, the export and other properties stay', async () => {
    world = await startWorld({ data: [['Profile URL'], ...PROFILES.map((p) => [p])] });
    await start(world, 'A1:A4');
    expect((await drive(world)).state).toBe('done');
    expect((await startWatch(world, OWNER)).started).toBe(true);
    const exported = await exportLog(world);
    expect(exported.written).toBe(3);
    world.env.documentProperties(world.ss.id).set({ 'another.tool': 'kept' });
    const cells = world.env.values(world.ss.id, 'A1:E4');
    expect(sheetNames(world)).toEqual(expect.arrayContaining([RESULTS_SHEET, CREDITS_SHEET, 'Credits log']));
    expect(addonProperties(world).length).toBeGreaterThan(2);
    expect(triggersOf(world)).toHaveLength(3);

    const plan = (await world.env.run('getDataRemovalPlan', [], world.as())) as DataRemovalPlan;
    expect(plan.refusal).toBe('');
    expect(plan.creditsLog).toBe(true);
    expect(plan.items.join('\n')).toMatch(/_pef_results[\s\S]*_pef_credits[\s\S]*Your watch of Sheet1!A:A/);
    // Asking changed nothing.
    expect(sheetNames(world)).toContain(RESULTS_SHEET);

    const result = (await world.env.run('removeSpreadsheetData', [], world.as())) as DataRemovalResult;
    expect(result).toMatchObject({ removed: true, triggersLeftWith: '' });
    expect(result.message).toContain('_pef_results and _pef_credits');
    expect(result.message).toContain('your 3 triggers of the watch');
    expect(sheetNames(world)).toEqual(['Sheet1', 'Credits log']);
    expect(addonProperties(world)).toEqual([]);
    expect(world.env.documentProperties(world.ss.id).get('another.tool')).toBe('kept');
    expect(triggersOf(world)).toEqual([]);
    expect(world.env.values(world.ss.id, 'A1:E4')).toEqual(cells);
    expect(world.env.values(world.ss.id, 'A2:A4').flat()).toEqual(PROFILES);
    const pace = world.env.documentCache(world.ss.id).get('pef.pace.bulk', Date.now());
    expect(pace).toBeNull();

    // Opening the sidebar and its tabs again writes nothing back.
    for (const fn of [
      'getSidebarState',
      'getEnrichmentProgress',
      'getCreditsSummary',
      'getWatchState',
      'getRunHistory',
    ])
      await world.env.run(fn, [], world.as());
    expect(addonProperties(world)).toEqual([]);
    expect(sheetNames(world)).toEqual(['Sheet1', 'Credits log']);

    // The plan now has nothing to remove, and a profile looked up again is paid again.
    const after = (await world.env.run('getDataRemovalPlan', [], world.as())) as DataRemovalPlan;
    expect(after).toEqual({ items: [], refusal: '', creditsLog: false });
    world.env.enter(world.ss.id, 'A5', [[PROFILES[0]]]);
    await start(world, 'A5');
    expect((await drive(world)).state).toBe('done');
    expect(Object.values(world.charges()).sort()).toEqual([1, 1, 2]);
  });

  it('a stopped watch is a stored value, not a watch to stop; the question and the result count the same values', async () => {
    world = await startWorld({ data: [['Profile URL'], ...PROFILES.map((p) => [p])] });
    await start(world, 'A1:A4');
    expect((await drive(world)).state).toBe('done');
    expect((await startWatch(world, OWNER)).started).toBe(true);
    await world.env.run('stopWatch', [], world.as());
    const plan = (await world.env.run('getDataRemovalPlan', [], world.as())) as DataRemovalPlan;
    expect(plan.items.join('\n')).not.toMatch(/watch of/i);
    const asked = /(\d+) stored values? in the spreadsheet/.exec(plan.items.join('\n'))?.[1];
    expect(Number(asked)).toBe(addonProperties(world).length);
    const result = (await world.env.run('removeSpreadsheetData', [], world.as())) as DataRemovalResult;
    expect(result.message).toContain(`${asked} stored values of the add-on`);
    expect(addonProperties(world)).toEqual([]);
  });

  it("tells an editor who is not the watch's creator whose triggers remain; they delete themselves at the next opening", async () => {
    world = await startWorld({ data: [['Profile URL']] });
    expect((await startWatch(world, OWNER)).started).toBe(true);
    expect(triggersOf(world).map((t) => t.user)).toEqual([OWNER, OWNER, OWNER]);

    const plan = (await world.env.run('getDataRemovalPlan', [], world.as(EDITOR))) as DataRemovalPlan;
    expect(plan.items.join('\n')).toContain(`paid by ${OWNER}`);
    expect(plan.items.join('\n')).toContain(`only ${OWNER} delete their triggers`);
    const result = (await world.env.run('removeSpreadsheetData', [], world.as(EDITOR))) as DataRemovalResult;
    expect(result.removed).toBe(true);
    expect(result.triggersLeftWith).toBe(OWNER);
    expect(result.message).toContain(`The watch's triggers belong to ${OWNER}`);
    expect(result.message).toContain('script.google.com › Triggers');
    // Apps Script lets the editor delete only their own triggers: the creator's are still there.
    expect(triggersOf(world).map((t) => t.user)).toEqual([OWNER, OWNER, OWNER]);
    expect(addonProperties(world)).toEqual([]);
    expect(sheetNames(world)).toEqual(['Sheet1']);

    const opened = await world.env.open(world.ss.id, { user: EDITOR });
    expect(opened.installable.map((r) => [r.user, r.value])).toEqual([[OWNER, 'not watching']]);
    expect(triggersOf(world)).toEqual([]);
    expect(addonProperties(world)).toEqual([]);
    expect(sheetNames(world)).toEqual(['Sheet1']);
  });

  it('is refused while a slice is at work or a formula is sending, and keeps everything', async () => {
    const { world, props, now, job } = await finishedRun();
    props.set({
      'pef.job': JSON.stringify({ ...job, state: 'running', updatedAt: now, leaseUntil: now + 600_000 }),
    });
    const before = addonProperties(world).sort();

    const refused = (await world.env.run('removeSpreadsheetData', [], world.as(EDITOR))) as DataRemovalResult;
    expect(refused.removed).toBe(false);
    expect(refused.message).toBe(
      'A run is under way in this spreadsheet (started by owner@example.com). Wait until it ends, or ask owner@example.com to pause it in their Progress tab, then press Remove again.',
    );
    const plan = (await world.env.run('getDataRemovalPlan', [], world.as(EDITOR))) as DataRemovalPlan;
    expect(plan.refusal).toBe(refused.message);
    expect(addonProperties(world).sort()).toEqual(before);
    expect(sheetNames(world)).toContain(RESULTS_SHEET);

    // The lease ran out and no sidebar drives the run any more: a formula's batch on its way still holds it back.
    world.env.advanceClock(3_600_000);
    const until = world.env.now() + 31_000;
    props.set({ 'pef.s.test': JSON.stringify({ u: until, k: ['x'], b: 1 }) });
    const sending = (await world.env.run('removeSpreadsheetData', [], world.as())) as DataRemovalResult;
    expect(sending.removed).toBe(false);
    expect(sending.message).toContain('=FINDEMAIL formulas are looking profiles up');
    // Its sender ended (the record is past its time), but the request it sent may still be answered and charged
    // for up to a minute (UrlFetchApp gives up after about one): still refused.
    world.env.advanceClock(until - world.env.now() + 30_000);
    const answering = (await world.env.run('removeSpreadsheetData', [], world.as())) as DataRemovalResult;
    expect(answering.removed).toBe(false);
    // Past that minute: the removal settles the record first (its profile a lost answer, maybe charged, like any
    // other result), then removes everything: nothing of the add-on is left.
    world.env.advanceClock(REQUEST_OUTLIVES_MS);
    const removed = (await world.env.run('removeSpreadsheetData', [], world.as())) as DataRemovalResult;
    expect(removed.removed).toBe(true);
    expect(addonProperties(world)).toEqual([]);
    expect(sheetNames(world)).toEqual(['Sheet1']);
  });

  it("keeps what =FINDEMAIL spent today: an editor's removal does not give formulas another day's limit", async () => {
    const people = Array.from({ length: 5 }, (_, i) => url(`rd-cap-${i}`));
    world = await startWorld({ data: [['Profile URL'], ...people.map((p) => [p])] });
    const w = world;
    await w.env.run('saveFormulaCap', [{ enabled: true, dailyCap: 3 }], w.as(OWNER));
    w.env.enter(w.ss.id, 'B2:B4', [['=FINDEMAIL(A2)'], ['=FINDEMAIL(A3)'], ['=FINDEMAIL(A4)']]);
    await w.env.recalculate(w.ss.id);
    expect(w.sandbox.service.totalCharged()).toBe(3);
    const props = w.env.documentProperties(w.ss.id);
    // The lost-answer marks go with the rest.
    props.set({ 'pef.lost': 'x'.repeat(21) });
    const spent = props.get('pef.formulaSpend');

    const plan = (await w.env.run('getDataRemovalPlan', [], w.as(EDITOR))) as DataRemovalPlan;
    expect(plan.items.join('\n')).toContain('What =FINDEMAIL spent today stays');
    const result = (await w.env.run('removeSpreadsheetData', [], w.as(EDITOR))) as DataRemovalResult;
    expect(result.removed).toBe(true);
    expect(result.message).toContain('and so is what =FINDEMAIL spent today');
    expect(addonProperties(w)).toEqual(['pef.formulaSpend']);
    expect(props.get('pef.formulaSpend')).toBe(spent);

    // The limit still counts today's three: two more profiles cost nothing and say so.
    w.env.enter(w.ss.id, 'B5:B6', [['=FINDEMAIL(A5)'], ['=FINDEMAIL(A6)']]);
    await w.env.recalculate(w.ss.id);
    expect(w.sandbox.service.totalCharged()).toBe(3);
    for (const value of w.env.values(w.ss.id, 'B5:B6').flat())
      expect(String(value)).toMatch(/^ERROR: The daily limit for =FINDEMAIL/);
  });

  it("is refused while a cancelled run's slice still holds the run, whatever its state; allowed once it ends", async () => {
    const { world, props, now, job } = await finishedRun();
    // Cancelled long ago as far as the sidebar knows, but a slice waits out a Retry-After with the lease held.
    props.set({
      'pef.job': JSON.stringify({
        ...job,
        state: 'cancelled',
        updatedAt: now - 3_600_000,
        leaseUntil: now + 170_000,
      }),
    });
    const before = addonProperties(world).sort();
    const refused = (await world.env.run('removeSpreadsheetData', [], world.as(EDITOR))) as DataRemovalResult;
    expect(refused.removed).toBe(false);
    expect(refused.message).toMatch(
      /^The last run \(cancelled\) is still finishing the lookups it had sent: their answers and charges are being written\. Press Remove again in [23] minutes, once the Progress tab no longer says the final count follows\.$/,
    );
    const plan = (await world.env.run('getDataRemovalPlan', [], world.as())) as DataRemovalPlan;
    expect(plan.refusal).toBe(refused.message);
    expect(addonProperties(world).sort()).toEqual(before);
    expect(sheetNames(world)).toContain(RESULTS_SHEET);

    world.env.advanceClock(180_000);
    const removed = (await world.env.run('removeSpreadsheetData', [], world.as(EDITOR))) as DataRemovalResult;
    expect(removed.removed).toBe(true);
    expect(sheetNames(world)).toEqual(['Sheet1']);
  });

  it('is named in the Help dialog, with what the add-on sends and keeps', async () => {
    world = await startWorld({ data: [['Profile URL']] });
    await world.env.run('showHelp', [], world.as());
    const help = (world.env.ui.dialogs.at(-1)?.html ?? '').replace(/\s+/g, ' ');
    expect(help).toContain('sends the e-mail service only the profile URL and the API key that pays');
    expect(help).toContain('anyone who can open or copy the file can read');
    expect(help).toContain("Remove this spreadsheet's add-on data");
    expect(help).toContain('privacy policy');
  });

  it('at the same time as a slice: refused with every charge logged, or done with nothing written after it', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => [url(`rd-race-${i}-lead`)]);
    world = await startWorld({
      data: [['Profile URL'], ...rows],
      // Short slices of one batch each: the run goes on in the slices the sidebar asks for.
      scriptProperties: { ENRICH_BATCH_SIZE: '4', ENRICH_STEP_BUDGET_MS: '500' },
    });
    const w = world;
    w.sandbox.service.configure({ latencyMs: 400 });
    expect((await start(w, 'A1:A13')).state).toBe('running');
    // A slice sending its batches, and the removal asked for while it works (two executions at once).
    const slice = w.env.run('continueEnrichment', [], w.as());
    await new Promise((resolve) => setTimeout(resolve, 150));
    const removal = (await w.env.run('removeSpreadsheetData', [], w.as(EDITOR))) as DataRemovalResult;
    await slice;
    if (removal.removed) {
      // Nothing of the add-on came back: the slice wrote nothing after the removal.
      expect(addonProperties(w)).toEqual([]);
      expect(sheetNames(w)).toEqual(['Sheet1']);
    } else {
      expect(removal.message).toMatch(/A run is under way/);
      expect((await drive(w)).state).toBe('done');
      const log = (await w.env.run('getCreditsSummary', [], w.as())) as CreditsSummary;
      expect(log.total).toBe(w.sandbox.service.totalCharged());
      expect(log.total).toBe(12);
    }
  });
});
