/**
 * The credits log: every credit the sandbox's ledger charged is one row of the hidden credits
 * sheet, with the right payer, over a mixed workload: the owner's and an editor's bulk runs (each with their own
 * key), a range formula (the owner's key), and a run whose connections are reset 10 % of the time (each lost answer
 * one "maybe charged" row: a lost answer is never sent again, so every profile appears once). An answer lost after
 * the service charged it, and a 200 the add-on cannot use, are each one row, and no later execution buys them again,
 * whoever runs it and whatever the document cache forgets; only Retry failed rows does, at the price its plan shows.
 */
import { ODD_SLUGS, predictLookup } from '../../../sandbox/profiles';
import type { LedgerEntry } from '../../../sandbox/service';
import { CREDITS_SHEET } from '../../../src/core/propertyNames';
import { type Charge, parseChargeRow } from '../../../src/store/credits';
import {
  API_KEY_PROPERTY,
  EDITOR,
  EDITOR_KEY,
  EDITOR_ORG,
  ORG,
  OWNER,
  sentFor,
  startWorld,
  url,
  type World,
} from '../../support/harness';
import { drive, start } from '../bulk/helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Rows 2..count+1 of a column: profile URLs with a prefix (a few not-found and unprocessable ones among them). */
function profiles(count: number, prefix: string): string[] {
  const marker = (i: number) => (i % 4 === 1 ? '-noemail' : i % 5 === 2 ? '-nodomain' : '');
  return Array.from({ length: count }, (_, i) => url(`${prefix}${marker(i)}-${i}`));
}

function logOf(w: World): Charge[] {
  const rows = w.env.values(w.ss.id, 'A1:G1000', CREDITS_SHEET);
  expect(rows[0][0]).toBe('When (UTC)');
  const charges = rows.slice(1).flatMap((row) => parseChargeRow(row) ?? []);
  const written = rows.slice(1).filter((row) => row.some((cell) => cell !== ''));
  expect(charges).toHaveLength(written.length);
  return charges;
}

function lookups(w: World): LedgerEntry[] {
  return w.sandbox.service.ledger().filter((entry) => entry.networkUrl !== undefined && !entry.keyCheck);
}

/** Counts by `<organisation> <sent URL>`. */
function tally<T>(items: T[], keyOf: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return counts;
}

/** Which organisation a row's payer spends: the owner's runs and the formulas the owner's, the editor's runs theirs. */
function orgOf(charge: Charge): string {
  if (charge.source === 'formulas') return ORG;
  if (charge.payer === OWNER) return ORG;
  if (charge.payer === EDITOR) return EDITOR_ORG;
  return `? ${charge.payer}`;
}

describe('the credits log', () => {
  it('holds one row per charge of the ledger, paid by the right person, over two people, formulas and lost answers', async () => {
    const owners = profiles(12, 'cl-owner');
    const editors = profiles(9, 'cl-editor');
    const formulas = profiles(6, 'cl-formula');
    const resets = profiles(40, 'cl-reset');
    // Columns A (the owner's run), F (the editor's), K (the reset run): each run's four result columns beside it
    // are empty. P: the formula's profiles, Q its formula.
    const data: string[][] = [
      ['Owner', '', '', '', '', 'Editor', '', '', '', '', 'Reset', '', '', '', '', 'Formula'],
    ];
    for (let i = 0; i < 40; i++) {
      const row = Array<string>(16).fill('');
      [row[0], row[5], row[10], row[15]] = [
        owners[i] ?? '',
        editors[i] ?? '',
        resets[i] ?? '',
        formulas[i] ?? '',
      ];
      data.push(row);
    }
    world = await startWorld({ data, scriptProperties: { ENRICH_BATCH_SIZE: '5' } });
    world.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });

    // The owner's range formula (the owner's key): its charges wait in document properties.
    world.env.enter(world.ss.id, 'Q2', [['=FINDEMAIL(P2:P7)']]);
    await world.env.recalculate(world.ss.id);
    expect(lookups(world)).toHaveLength(formulas.length);

    // The owner's run (it moves the formulas' charges into the log first), then the editor's.
    await start(world, 'A1:A13');
    expect((await drive(world)).state).toBe('done');
    world.env.select(world.ss.id, 'F1:F10');
    const plan = (await world.env.run('getRunPlan', [{}], world.as(EDITOR))) as { credits: number };
    await world.env.run('startRun', [{ confirmedCredits: plan.credits }], world.as(EDITOR));
    for (let slice = 0; slice < 100; slice++) {
      const progress = (await world.env.run('continueEnrichment', [], world.as(EDITOR))) as { state: string };
      if (progress.state !== 'running') break;
    }

    // Without faults: the log is the ledger's charges, entry for entry.
    const clean = logOf(world);
    const ledger = lookups(world);
    expect(ledger.every((entry) => entry.charged === 1)).toBe(true);
    expect(clean.every((charge) => charge.outcome !== 'lost')).toBe(true);
    expect(tally(clean, (c) => `${orgOf(c)} ${sentFor(c.profile)}`)).toEqual(
      tally(ledger, (e) => `${e.organization} ${e.networkUrl}`),
    );
    expect(clean.filter((c) => c.source === 'formulas')).toHaveLength(formulas.length);
    expect(clean.filter((c) => c.payer === EDITOR)).toHaveLength(editors.length);
    expect(clean.filter((c) => c.payer === OWNER)).toHaveLength(owners.length);
    expect(clean.filter((c) => c.payer === OWNER).every((c) => /^run .+'!A2:A13$/.test(c.where))).toBe(true);
    expect(clean.filter((c) => c.payer === EDITOR).every((c) => /'!F2:F10$/.test(c.where))).toBe(true);
    const expected: Record<string, string> = {
      found: 'found',
      not_found: 'no address',
      unprocessable: 'unprocessable',
    };
    for (const charge of clean) expect(charge.outcome).toBe(expected[predictLookup(charge.profile).kind]);
    expect(new Set(clean.map((c) => c.outcome))).toEqual(new Set(['found', 'no address', 'unprocessable']));

    // The owner's run over connections reset 10 % of the time: each sent lookup is a row (a lost one "maybe
    // charged"); every credit charged has its row.
    world.sandbox.service.configure({ resetRate: 0.1 });
    world.sandbox.service.resetLedger();
    await start(world, 'K1:K41');
    await drive(world);
    const resetRun = logOf(world).slice(clean.length);
    const sent = lookups(world);
    expect(sent.some((entry) => entry.status === 'reset')).toBe(true);
    expect(resetRun.every((c) => c.payer === OWNER && c.source === 'run')).toBe(true);
    expect(tally(resetRun, (c) => sentFor(c.profile))).toEqual(tally(sent, (e) => e.networkUrl ?? ''));
    const lost = resetRun.filter((c) => c.outcome === 'lost');
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.length).toBeGreaterThanOrEqual(sent.filter((e) => e.status === 'reset').length);
    const charged = tally(
      sent.filter((e) => e.charged === 1),
      (e) => e.networkUrl ?? '',
    );
    const definite = tally(
      resetRun.filter((c) => c.outcome !== 'lost'),
      (c) => sentFor(c.profile),
    );
    const rows = tally(resetRun, (c) => sentFor(c.profile));
    for (const [profile, count] of rows) {
      expect(definite.get(profile) ?? 0).toBeLessThanOrEqual(charged.get(profile) ?? 0);
      expect(charged.get(profile) ?? 0).toBeLessThanOrEqual(count);
    }
    expect([...charged.keys()].every((profile) => rows.has(profile))).toBe(true);
    // A profile whose answer was lost is not sent again: every profile was sent once and has one row.
    expect(sent).toHaveLength(new Set(sent.map((e) => e.networkUrl)).size);
    expect([...rows.values()].every((count) => count === 1)).toBe(true);
    expect(rows.size).toBe(sent.length);
  });

  it('an answer lost after its charge and a 200 without a result are one row each; no other execution or person buys them again, only Retry failed rows', async () => {
    const lostAnswer = url(`${ODD_SLUGS.lostAnswer}lu-lost`);
    const empty = url(`${ODD_SLUGS.empty200}em-empty`);
    const inputs = [url('an-found'), lostAnswer, empty, url('bo-found')];
    // A document cache that forgets everything at once: what guards the credits is in the document.
    world = await startWorld({
      data: [['Profile', 'Formula'], ...inputs.map((input, i) => [input, `=FINDEMAIL(A${i + 2})`])],
      env: { cacheEviction: { probability: 1, seed: 3 } },
    });
    const w = world;
    w.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
    await w.env.recalculate(w.ss.id);
    const cells = w.env.values(w.ss.id, 'B2:B5').map((row) => row[0]);
    expect(cells[1]).toMatch(
      /^ERROR: The answer was lost on the way: .+; the service may have charged a credit\. It is not looked up again unless you ask: select its URL, choose Find e-mails for the selected column, then Retry failed rows \(1 credit\)\.$/,
    );
    expect(cells[2]).toMatch(
      /^ERROR: The service answered HTTP 200 without a usable result \(.+\); it may have charged a credit\. It is not looked up again/,
    );
    expect(lookups(w).map((e) => [e.networkUrl, e.status, e.charged])).toEqual(
      expect.arrayContaining([
        [sentFor(lostAnswer), 'reset', 1],
        [sentFor(empty), 200, 1],
      ]),
    );
    expect(lookups(w)).toHaveLength(4);

    // The cells evaluated again and again, the cache forgetting meanwhile: nothing is sent.
    for (let again = 0; again < 3; again++) {
      w.env.documentCache(w.ss.id).entries.clear();
      await w.env.recalculate(w.ss.id);
      expect(w.env.values(w.ss.id, 'B2:B5').map((row) => row[0])).toEqual(cells);
    }
    expect(lookups(w)).toHaveLength(4);

    // The editor's run over the column (their own key): the four are known, free; two rows ERROR.
    const editorRun = async (request: Record<string, unknown>) => {
      w.env.select(w.ss.id, 'A1:A5');
      const plan = (await w.env.run('getRunPlan', [request], w.as(EDITOR))) as { credits: number };
      await w.env.run('startRun', [{ ...request, confirmedCredits: plan.credits }], w.as(EDITOR));
      let progress = (await w.env.run('getEnrichmentProgress', [], w.as(EDITOR))) as { state: string };
      for (let slice = 0; slice < 100 && progress.state === 'running'; slice++)
        progress = (await w.env.run('continueEnrichment', [], w.as(EDITOR))) as { state: string };
      expect(progress.state).toBe('done');
      return plan.credits;
    };
    // The output columns go beside the URLs' (the formulas' column is the person's): read by row.
    expect(await editorRun({ placement: 'right' })).toBe(0);
    expect(lookups(w)).toHaveLength(4);
    const statuses = w.env
      .values(w.ss.id, 'A2:Z5')
      .map((row) => row.filter((cell) => cell === 'ERROR').length);
    expect(statuses).toEqual([0, 1, 1, 0]);

    // The log: one row each, the outcome named.
    const logged = logOf(w);
    expect(logged.map((c) => [sentFor(c.profile), c.outcome, c.source])).toEqual(
      expect.arrayContaining([
        [sentFor(lostAnswer), 'lost', 'formulas'],
        [sentFor(empty), 'unusable', 'formulas'],
      ]),
    );
    expect(tally(logged, (c) => sentFor(c.profile))).toEqual(tally(lookups(w), (e) => e.networkUrl ?? ''));

    // Retry failed rows prices the two and buys only them again, on the editor's key.
    expect(await editorRun({ mode: 'retry' })).toBe(2);
    const again = lookups(w).slice(4);
    expect(again.map((e) => [e.networkUrl, e.organization]).sort()).toEqual(
      [
        [sentFor(lostAnswer), EDITOR_ORG],
        [sentFor(empty), EDITOR_ORG],
      ].sort(),
    );
    expect(tally(logOf(w), (c) => `${orgOf(c)} ${sentFor(c.profile)}`)).toEqual(
      tally(lookups(w), (e) => `${e.organization} ${e.networkUrl}`),
    );
  });
});
