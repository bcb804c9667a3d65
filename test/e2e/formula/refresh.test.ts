/**
 * Formulas that cannot write document properties send nothing and point to the bulk run; the
 * menu item "Refresh =FINDEMAIL cells" enters unfinished formulas again (Sheets has no recalculate for custom
 * functions); a column of single-cell formulas past Apps Script's 30 simultaneous executions gets done through it;
 * onOpen and onEdit move the formula buffer into the results sheet. The menu item over a sheet port:
 * test/formula/refresh.test.ts.
 */
import { propertyCalls, TOO_MANY_SIMULTANEOUS_MESSAGE } from '../../../emulator';
import { startWorld, url, type World } from '../../support/harness';
import { chargedTwice, drive } from '../bulk/helpers';
import { answersWaiting } from '../store/helpers';
import { cellError, column, emailOf, fillDown, lookups } from './helpers';

const REFRESH = 'Extensions › Profile Email Finder › Refresh =FINDEMAIL cells';
const BULK = 'Extensions › Profile Email Finder › Find e-mails for the selected column';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function urls(count: number, prefix: string): string[][] {
  return Array.from({ length: count }, (_, i) => [url(`${prefix}-${i}`)]);
}

/** Runs the menu item as the owner with `a1` selected, then lets Sheets evaluate the formulas it entered. */
async function refresh(w: World, a1: string): Promise<string> {
  w.env.select(w.ss.id, a1);
  const message = (await w.env.run('refreshFormulas', [], w.as())) as string;
  await w.env.formulasSettled();
  return message;
}

describe('formulas where custom functions may not write document properties', () => {
  it('send nothing and say so; the bulk run completes; Refresh shows its results', async () => {
    world = await startWorld({
      data: [['Profile'], ...urls(10, 'wren-ash')],
      env: { customFunctionDocumentWrites: 'refused' },
    });
    world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A11)']]);
    world.env.enter(world.ss.id, 'I2', [['=FINDEMAIL(A3)']]);
    const checks = await world.env.recalculate(world.ss.id);
    // Each cell tried one write (its sending record, before any request), refused: it failed safe.
    const tried = checks.results.map((r) => r.counts['Properties.setProperties'] ?? 0);
    expect(tried).toEqual([1, 1]);
    expect(checks.results.every((r) => r.ok)).toBe(true);
    expect(lookups(world)).toHaveLength(0);
    expect(world.sandbox.service.ledger()).toHaveLength(0);
    for (const value of [...column(world, 'H2:H11'), ...column(world, 'I2:I2')]) {
      expect(value).toMatch(
        /^ERROR: Not looked up \(no credit spent\): Apps Script does not let formulas save/,
      );
      expect(value).toContain(BULK);
      expect(value).toContain(REFRESH);
    }

    // Evaluated again: the same one write refused, nothing sent.
    await world.env.recalculate(world.ss.id, { cells: [{ a1: 'I2' }] });
    expect(world.sandbox.service.ledger()).toHaveLength(0);

    world.env.select(world.ss.id, 'A1:A11');
    expect((await world.env.run('enrichSelection', [], world.as())) as { state: string }).toBeDefined();
    expect((await drive(world)).state).toBe('done');
    expect(Object.keys(world.charges())).toHaveLength(10);

    // The formulas show the bulk run's results once entered again, for free.
    world.env.select(world.ss.id, 'A1');
    const message = await refresh(world, 'A1');
    expect(message).toMatch(/^Entered 2 unfinished =FINDEMAIL formulas of the sheet Sheet1 again/);
    expect(column(world, 'H2:H11')).toEqual(urls(10, 'wren-ash').map(([link]) => emailOf(link)));
    expect(column(world, 'I2:I2')).toEqual([emailOf(url('wren-ash-1'))]);
    expect(world.env.formulas(world.ss.id, 'H2:I2')).toEqual([['=FINDEMAIL(A2:A11)', '=FINDEMAIL(A3)']]);
    expect(chargedTwice(world)).toEqual([]);
    expect(lookups(world)).toHaveLength(10);
  });
});

describe('Refresh =FINDEMAIL cells', () => {
  it('60 single-cell formulas at once: those past 30 show the platform error; Refresh gets all done, each profile paid once', async () => {
    world = await startWorld({ data: [['Profile'], ...urls(60, 'kit-moss')] });
    fillDown(world, 'H', 'A', 2, 61);
    await world.env.recalculate(world.ss.id);
    const refused = column(world, 'H2:H61').filter((value) => value === '#ERROR!');
    expect(refused.length).toBeGreaterThan(0);
    const notes = new Set(
      Array.from({ length: 60 }, (_, i) => cellError(world as World, `H${i + 2}`)).filter(Boolean),
    );
    expect(notes).toEqual(new Set([TOO_MANY_SIMULTANEOUS_MESSAGE]));

    const want = urls(60, 'kit-moss').map(([link]) => emailOf(link));
    // The first refresh enters only the refused cells again.
    const first = await refresh(world, 'H2:H61');
    expect(first).toMatch(
      new RegExp(
        `^Entered ${refused.length} unfinished =FINDEMAIL formulas? of the selected range H2:H61 again`,
      ),
    );
    for (let round = 0; round < 2 && column(world, 'H2:H61').some((v, i) => v !== want[i]); round++)
      await refresh(world, 'H2:H61');
    expect(column(world, 'H2:H61')).toEqual(want);
    expect(chargedTwice(world)).toEqual([]);
    expect(Object.keys(world.charges())).toHaveLength(60);
    expect(world.env.formulas(world.ss.id, 'H2:H3')).toEqual([['=FINDEMAIL(A2)'], ['=FINDEMAIL(A3)']]);
  });

  it('enters only unfinished formulas again; none unfinished: says so and changes nothing', async () => {
    world = await startWorld({ data: [['Profile'], ...urls(3, 'ivy-lane')] });
    fillDown(world, 'H', 'A', 2, 4);
    await world.env.recalculate(world.ss.id);
    const runs = world.env.executions.length;
    const message = await refresh(world, 'H2:H4');
    expect(message).toBe(
      'No unfinished =FINDEMAIL cells in the selected range H2:H4 or on the sheet Sheet1.',
    );
    expect(world.env.executions.length).toBe(runs + 1);
    expect(lookups(world)).toHaveLength(3);
  });
});

describe('the answers formulas paid for', () => {
  it('are folded into the results sheet by onEdit (AuthMode.LIMITED), not in AuthMode.NONE', async () => {
    world = await startWorld({ data: [['Profile'], ...urls(3, 'oak-reed')] });
    world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A4)']]);
    await world.env.recalculate(world.ss.id);
    const buffered = () => (world ? answersWaiting(world) : []);
    expect(buffered()).toHaveLength(3);

    // No one used the add-on's menu or sidebar in the document yet: onEdit runs in NONE and touches nothing.
    const none = await world.env.edit(world.ss.id, 'K1', [['a note']]);
    expect(none.ok).toBe(true);
    expect(buffered()).toHaveLength(3);
    await world.env.run('showSettings', [], world.as());
    const edit = await world.env.edit(world.ss.id, 'K1', [['another note']]);
    expect(edit.ok).toBe(true);
    expect(buffered()).toHaveLength(0);
    // Kept in the sheet: evaluated again, the formula reads them there, for free.
    world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A4)']]);
    await world.env.recalculate(world.ss.id);
    expect(column(world, 'H2:H4')).toEqual(urls(3, 'oak-reed').map(([link]) => emailOf(link)));
    expect(lookups(world)).toHaveLength(3);

    // An edit with nothing buffered: one read of the document properties, no write.
    const quiet = await world.env.edit(world.ss.id, 'K1', [['a third note']]);
    expect(propertyCalls(quiet.counts)).toBe(1);
    expect(quiet.counts['Lock.tryLock'] ?? 0).toBe(0);
  });

  it('are folded by onOpen when it runs with authority (LIMITED), and onOpen in AuthMode.NONE still builds the menu', async () => {
    world = await startWorld({ data: [['Profile'], ...urls(2, 'elm-ford')] });
    world.env.enter(world.ss.id, 'H2', [['=FINDEMAIL(A2:A3)']]);
    await world.env.recalculate(world.ss.id);
    const buffered = () => (world ? answersWaiting(world) : []);
    expect(buffered()).toHaveLength(2);
    const none = await world.env.execute('onOpen', [], world.as(undefined, { authMode: 'NONE', event: {} }));
    expect(none.ok).toBe(true);
    expect(buffered()).toHaveLength(2);
    const limited = await world.env.execute(
      'onOpen',
      [],
      world.as(undefined, { authMode: 'LIMITED', event: {} }),
    );
    expect(limited.ok).toBe(true);
    expect(buffered()).toHaveLength(0);
    const items = (world.env.ui.menus.at(-1)?.items ?? []) as Array<{ caption?: string; fn?: string }>;
    expect(items.map((item) => item.caption)).toContain('Refresh =FINDEMAIL cells');
  });
});
