/**
 * Seeded random cases, at least 200 a run (the seed is printed on failure; PEF_RANDOM_SEED replays one): sheets
 * mixing a person's data and the add-on's results, then random edits, pastes, sorts, row and column inserts by two
 * editors, runs, Retry failed rows, Freeze and a watch. Afterwards every cell the person wrote is as they wrote it,
 * wherever their rows moved, and the credits log equals the sandbox's ledger.
 */

import { DEFAULT_LOCK_RATE_LIMIT } from '../../../emulator';
import { ODD_SLUGS } from '../../../sandbox/profiles';
import type { RunPlan } from '../../../src/api';
import { EDITOR, EDITOR_KEY, OWNER, startWorld, url, type World } from '../../support/harness';
import { drive, expectLogEqualsLedger, lookups } from './helpers';

const SEED = Number(process.env.PEF_RANDOM_SEED ?? 1 + (Date.now() % 100_000));
const CASES = 200;
const OPS_PER_CASE = 6;

jest.setTimeout(240_000);

/** mulberry32: a small seeded generator, the same sequence for a seed on every machine. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = { next: () => number; int(n: number): number; pick<T>(items: readonly T[]): T };

function random(seed: number): Random {
  const next = generator(seed);
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)],
  };
}

const LOOKS = ['VALID', 'ERROR', 'NOT_FOUND', 'ACTIVE', 'UNPROCESSABLE', 'INVALID_URL'];

/** A row of the person's look-alike table: Name | Email | Status | Token | Notes (the token finds it again). */
function personRow(rng: Random, token: string): string[] {
  const name = rng.pick(['Ann', 'Bob', 'Cy', 'Di', 'Ed', 'Flo']);
  const email = rng.next() < 0.7 ? `${name.toLowerCase()}${rng.int(99)}@acme.test` : '';
  return [name, email, rng.pick(LOOKS), token, rng.pick(['', 'met at fair', 'VIP', 'ERROR'])];
}

/** What a case expects to find untouched: table rows (by token, five cells) and single cells (by their text). */
interface Expected {
  rows: Map<string, string[]>;
  singles: Set<string>;
}

function profileOf(rng: Random, c: number, i: number): string {
  const roll = rng.next();
  if (roll < 0.08) return url(`${ODD_SLUGS.empty200}c${c}-${i}`);
  if (roll < 0.12) return 'not a url';
  if (roll < 0.2) return url(`p${c}-${Math.max(0, i - 1)}`);
  return url(`p${c}-${i}`);
}

/**
 * A menu or sidebar call as a person makes it: "… try again in a moment" (LockService's rate quota, met by the case's
 * calls in quick succession) is tried again a moment later on the emulator's clock.
 */
async function asPerson<T>(w: World, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const busy = /try again in a moment/i.test(error instanceof Error ? error.message : '');
      if (!busy || attempt >= 3) throw error;
      w.env.advanceClock(DEFAULT_LOCK_RATE_LIMIT.windowMs);
    }
  }
}

async function startAsked(w: World, ssId: string, a1: string, sheet: string, rng: Random, mode: string) {
  w.env.select(ssId, a1, sheet);
  const as = { user: OWNER, spreadsheetId: ssId };
  const plan = (await asPerson(w, () => w.env.run('getRunPlan', [{ mode }], as))) as RunPlan;
  if (plan.refusal) return;
  const placement = plan.needsChoice ? rng.pick(['insert', 'right'] as const) : undefined;
  const chosen = placement
    ? ((await asPerson(w, () => w.env.run('getRunPlan', [{ mode, placement }], as))) as RunPlan)
    : plan;
  await asPerson(w, () => w.env.run('startRun', [{ mode, placement, confirmedCredits: chosen.credits }], as));
  await drive({ ...w, as: () => as } as World, 60, DEFAULT_LOCK_RATE_LIMIT.windowMs);
}

/** Every expected cell is where the person's rows went, as they wrote it. */
function checkIntact(w: World, ssId: string, sheets: string[], expected: Expected, where: string): void {
  const grids = sheets.map((name) => w.env.values(ssId, 'A1:AD60', name));
  for (const [token, row] of expected.rows) {
    const found = grids.flatMap((grid) =>
      grid.flatMap((line) => {
        const at = line.indexOf(token);
        return at >= 3 ? [line.slice(at - 3, at + 2)] : [];
      }),
    );
    if (found.length !== 1 || JSON.stringify(found[0]) !== JSON.stringify(row))
      throw new Error(
        `${where}: the person's row ${token} is ${JSON.stringify(found)}, was ${JSON.stringify(row)}`,
      );
  }
  for (const text of expected.singles) {
    const count = grids.flat(2).filter((value) => value === text).length;
    if (count !== 1) throw new Error(`${where}: the person's cell "${text}" is there ${count} times`);
  }
}

it(`random sheets, edits, moves, runs and a watch leave every cell of the person's as written (seed ${SEED})`, async () => {
  const world = await startWorld({ data: [['Profile']], credits: 100_000 });
  world.env.userProperties(EDITOR).set({ PEF_API_KEY: EDITOR_KEY });
  const ssId = world.ss.id;
  let where = '';
  try {
    for (let c = 0; c < CASES; c++) {
      const rng = random(SEED * 1000 + c);
      const tab = world.ss.addSheet(`Case ${c}`, 60, 30);
      const other = world.ss.addSheet(`People ${c}`, 60, 30);
      const sheets = [tab.name, other.name];
      const expected: Expected = { rows: new Map(), singles: new Set() };
      const urls = Array.from({ length: 3 + rng.int(5) }, (_, i) => profileOf(rng, c, i));
      world.env.enter(ssId, `A1:A${urls.length + 1}`, [['Profile'], ...urls.map((link) => [link])], tab.name);
      let tokens = 0;
      const table = (sheet: string, row: number, column: number, rows: number) => {
        const lines = Array.from({ length: rows }, () => personRow(rng, `T${c}-${tokens++}`));
        const left = String.fromCharCode(64 + column);
        const right = String.fromCharCode(64 + column + 4);
        world.env.enter(ssId, `${left}${row}:${right}${row + rows - 1}`, lines, sheet);
        for (const line of lines) expected.rows.set(line[3], line);
      };
      // The person's look-alike tables: beside the URLs (where results would go), further right, on another sheet.
      if (rng.next() < 0.4) table(tab.name, 2, 2, Math.min(urls.length, 2 + rng.int(3)));
      table(tab.name, 2 + rng.int(4), 8 + rng.int(4), 2 + rng.int(3));
      table(other.name, 1 + rng.int(3), 1 + rng.int(3), 3);
      const users = [OWNER, EDITOR];
      let watching = false;
      for (let op = 0; op < OPS_PER_CASE; op++) {
        const kind = rng.pick([
          'run',
          'run',
          'retry',
          'editUrl',
          'pasteUrls',
          'editPerson',
          'noteOverResult',
          'sort',
          'insertRows',
          'insertColumns',
          'freeze',
          'watch',
        ] as const);
        where = `seed ${SEED}, case ${c}, op ${op} (${kind})`;
        const user = rng.pick(users);
        const last = tab.lastRow();
        switch (kind) {
          case 'run':
          case 'retry':
            await startAsked(
              world,
              ssId,
              `A1:A${Math.max(2, last)}`,
              tab.name,
              rng,
              kind === 'run' ? 'all' : 'retry',
            );
            break;
          case 'editUrl': {
            const row = 2 + rng.int(Math.max(1, last - 1));
            const value =
              rng.next() < 0.3 ? `${url(`p${c}-${rng.int(9)}`.toUpperCase())}/` : profileOf(rng, c, 9);
            await world.env.edit(ssId, `A${row}`, [[value]], { user, sheetName: tab.name });
            break;
          }
          case 'pasteUrls': {
            const row = 2 + rng.int(Math.max(1, last - 1));
            await world.env.edit(
              ssId,
              `A${row}:A${row + 1}`,
              [[profileOf(rng, c, 7)], [profileOf(rng, c, 8)]],
              {
                user,
                sheetName: tab.name,
              },
            );
            break;
          }
          case 'editPerson': {
            // The person types a cell of theirs again, or changes a note of a row of theirs.
            const [token, row] = rng.pick([...expected.rows]);
            const sheet = sheets.find((name) =>
              world.env.values(ssId, 'A1:AD60', name).some((line) => line.includes(token)),
            );
            if (!sheet) break;
            const lines = world.env.values(ssId, 'A1:AD60', sheet);
            const r = lines.findIndex((line) => line.includes(token));
            const column = lines[r].indexOf(token) + 1;
            const note = rng.pick(['', 'call back', 'VALID', 'NOT_FOUND']);
            const a1 = `${String.fromCharCode(64 + column + 1)}${r + 1}`;
            await world.env.edit(ssId, a1, [[note]], { user, sheetName: sheet });
            expected.rows.set(token, [...row.slice(0, 4), note]);
            break;
          }
          case 'noteOverResult': {
            // The person writes over a Note cell the add-on wrote: that cell is theirs now.
            const lines = world.env.values(ssId, 'A1:AD60', tab.name);
            const theirs = (line: unknown[]) => line.some((value) => String(value).startsWith(`T${c}-`));
            const spots = lines.flatMap((line, r) =>
              theirs(line) || !String(line[0]).includes('/in/')
                ? []
                : line.flatMap((value, col) =>
                    (value === 'VALID' || value === 'NOT_FOUND') && col >= 2 ? [{ r, col }] : [],
                  ),
            );
            if (spots.length === 0) break;
            const spot = rng.pick(spots);
            const text = `N${c}-${op}`;
            const a1 = `${String.fromCharCode(64 + spot.col + 3)}${spot.r + 1}`;
            if (
              String(lines[spot.r][spot.col + 2] ?? '') !== '' &&
              !String(lines[spot.r][spot.col + 2]).startsWith('No address')
            )
              break;
            await world.env.edit(ssId, a1, [[text]], { user, sheetName: tab.name });
            expected.singles.add(text);
            break;
          }
          case 'sort':
            tab.sort(rng.pick([1, 2, 9]), rng.next() < 0.5, 2);
            break;
          case 'insertRows':
            tab.insertRows(2 + rng.int(Math.max(1, last)), 1 + rng.int(2), world.ss.sheets);
            break;
          case 'insertColumns':
            // Before B (between the URLs and everything right of them), or past every table.
            tab.insertColumns(rng.next() < 0.5 ? 2 : 25, 1 + rng.int(2));
            break;
          case 'freeze': {
            world.env.enter(ssId, 'Z2', [['=FINDEMAIL(A2)']], tab.name);
            await world.env.recalculate(ssId, { cells: [{ sheet: tab.name, a1: 'Z2' }] });
            world.env.select(ssId, 'Z2', tab.name);
            await asPerson(world, () =>
              world.env.run('freezeResults', [], { user: OWNER, spreadsheetId: ssId }),
            );
            break;
          }
          case 'watch': {
            if (!watching) {
              world.env.select(ssId, 'A1', tab.name);
              await asPerson(world, () =>
                world.env.run('startWatch', [{ limit: 20 }], { user: OWNER, spreadsheetId: ssId }),
              );
              watching = true;
            }
            await world.env.change(ssId, `A${tab.lastRow() + 1}`, [[profileOf(rng, c, 5)]], {
              user,
              sheetName: tab.name,
            });
            break;
          }
        }
        checkIntact(world, ssId, sheets, expected, where);
      }
      if (watching)
        await asPerson(world, () => world.env.run('stopWatch', [], { user: OWNER, spreadsheetId: ssId }));
    }
    where = `seed ${SEED}, the credits log`;
    await world.env.run('getCreditsSummary', [], world.as());
    expectLogEqualsLedger(world);
    // The cases did work: the add-on looked up and wrote results in most of them.
    expect(lookups(world).filter((entry) => entry.charged === 1).length).toBeGreaterThan(CASES);
  } catch (error) {
    throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await world.close();
  }
});
