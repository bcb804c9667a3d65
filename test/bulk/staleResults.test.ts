import { type Block, frameOf } from '../../src/bulk/blocks';
import { clearStaleResults } from '../../src/bulk/staleResults';
import type { ScriptConfig } from '../../src/core/config';
import type { Platform } from '../../src/core/ports';
import { BLOCKS_PROPERTY } from '../../src/core/propertyNames';
import type { EditedCells } from '../../src/core/sheet';
import { parseNetworkHosts } from '../../src/core/url';
import { enrichmentRow } from '../../src/lookup/cellValues';
import type { LookupResult } from '../../src/lookup/result';
import { encodeResult } from '../../src/store/codec';
import { resultsSheetOn } from '../../src/store/resultsSheet';
import { hashOf } from '../../src/store/table';
import { testJob } from '../support/job';
import {
  freeLock,
  MemoryProperties,
  MemorySheet,
  memoryHiddenSheet,
  testPlatform,
} from '../support/platform';
import { found } from '../support/results';

const HOSTS = parseNetworkHosts('network.com');
const A = 'https://network.com/in/a';
const B = 'https://network.com/in/b';
const C = 'https://network.com/in/c';
const foundA = found('a@acme.test');
const foundB = found('b@acme.test');
const notFound: LookupResult = { kind: 'not_found', profile: {} };
/** The cells the add-on writes for `result` (Account type and Name too with `extraFields`). */
const written = (result: LookupResult, extraFields = false) => enrichmentRow(result, extraFields);

/** Where the add-on wrote on `sheet`: a recorded block of rows `firstRow`..`lastRow`, output beside `urlColumn`. */
function blockOf(
  sheet: MemorySheet,
  firstRow: number,
  lastRow: number,
  place: { urlColumn?: number; outputColumn?: number; extraFields?: boolean; sheetId?: number } = {},
): Block {
  const urlColumn = place.urlColumn ?? 1;
  return frameOf(
    testJob('done', {
      id: `run-${urlColumn}-${firstRow}`,
      sheetId: place.sheetId ?? sheet.id,
      urlColumn,
      outputColumn: place.outputColumn ?? urlColumn + 1,
      extraFields: place.extraFields ?? false,
      headerRow: null,
      firstRow,
      lastRow,
      maxRows: sheet.maxRows(),
      maxColumns: sheet.maxColumns(),
    }),
  );
}

/**
 * A platform whose onEdit reports `block` (row, column, rows, columns of the edited block) on `sheet`, the add-on's
 * recorded `blocks`, and a result store holding `stored` (by normalised URL).
 */
function platformFor(
  sheet: MemorySheet,
  block: EditedCells['block'] | null,
  oldValue: unknown,
  blocks: Block[],
  stored: Record<string, LookupResult> = { [A]: foundA, [B]: foundB, [C]: notFound },
) {
  const properties = new MemoryProperties();
  if (blocks.length > 0) properties.setProperty(BLOCKS_PROPERTY, JSON.stringify(blocks));
  const resultsSheet = memoryHiddenSheet();
  resultsSheetOn(resultsSheet).appendResults(
    new Map(Object.entries(stored).map(([key, result]) => [hashOf(key), encodeResult(result, 0)])),
  );
  properties.calls = 0;
  const platform: Platform = testPlatform({
    editedCells: () => (block ? { sheet, block, ...(oldValue === undefined ? {} : { oldValue }) } : null),
    config: () => ({ networkHosts: HOSTS }) as ScriptConfig,
    documentProperties: () => properties,
    resultsSheet,
    clock: { now: () => 0 } as Platform['clock'],
    lock: freeLock,
  });
  return { platform, properties };
}

const one = (row: number, column = 1) => ({ row, column, rows: 1, columns: 1 });

/** onEdit's call: the document properties as the trigger read them (one call), then the clearing. */
function clearIn({ platform, properties }: ReturnType<typeof platformFor>): number {
  return clearStaleResults(platform, {}, properties.getProperties());
}

describe('clearStaleResults', () => {
  it("clears the add-on's result beside a URL edited to another profile", () => {
    const sheet = new MemorySheet([[B, ...written(foundA), 'mine']]);
    expect(clearIn(platformFor(sheet, one(1), A, [blockOf(sheet, 1, 1)]))).toBe(1);
    expect(sheet.rows[0]).toEqual([B, '', '', '', '', 'mine']);
  });

  it('keeps the result when the new URL is another spelling of the same profile', () => {
    const sheet = new MemorySheet([['https://www.network.com/in/A/', ...written(foundA)]]);
    expect(clearIn(platformFor(sheet, one(1), A, [blockOf(sheet, 1, 1)]))).toBe(0);
    expect(sheet.rows[0][1]).toBe('a@acme.test');
  });

  it("never clears cells that are not the add-on's output, nor a result other than the old URL's", () => {
    const sheet = new MemorySheet([
      [B, 'my note', 'YES', 'x', 'y'],
      [B, ...written(foundB)],
    ]);
    const blocks = [blockOf(sheet, 1, 2)];
    expect(clearIn(platformFor(sheet, one(1), A, blocks))).toBe(0);
    expect(sheet.rows[0]).toEqual([B, 'my note', 'YES', 'x', 'y']);
    // Row 2 shows B's result, not the one of A (the URL before the edit): the person's copy, kept.
    expect(clearIn(platformFor(sheet, one(2), A, blocks))).toBe(0);
    expect(sheet.writes).toBe(0);
  });

  it("leaves a result alone outside the add-on's recorded blocks: the look of cells never decides", () => {
    const sheet = new MemorySheet([
      [B, ...written(foundA)],
      [B, ...written(foundA)],
    ]);
    expect(clearIn(platformFor(sheet, one(1), A, []))).toBe(0);
    // A block on rows 2.. only, and one of another sheet over row 1.
    const blocks = [blockOf(sheet, 2, 2), blockOf(sheet, 1, 1, { sheetId: sheet.id + 1 })];
    expect(clearIn(platformFor(sheet, one(1), A, blocks))).toBe(0);
    expect(sheet.writes).toBe(0);
    expect(clearIn(platformFor(sheet, one(2), A, blocks))).toBe(1);
  });

  it("clears only the rows of a pasted block that show another profile's result, in adjacent runs", () => {
    const sheet = new MemorySheet([
      [A, ...written(foundB)],
      [B, ...written(notFound)],
      [A, 'mine', '', '', ''],
      [B, ...written(foundA)],
      // Its own result, the paste put back where it was: kept.
      [A, ...written(foundA)],
    ]);
    const world = platformFor(sheet, { row: 1, column: 1, rows: 5, columns: 1 }, undefined, [
      blockOf(sheet, 1, 5),
    ]);
    expect(clearIn(world)).toBe(3);
    expect(sheet.rows.slice(0, 4).map((row) => row.slice(1).join('|'))).toEqual([
      '|||',
      '|||',
      'mine|||',
      '|||',
    ]);
    expect(sheet.rows[4][1]).toBe('a@acme.test');
    expect(sheet.writes).toBe(2);
  });

  it("finds the URL column from the add-on's blocks; output cells edited with the URLs are the person's", () => {
    const sheet = new MemorySheet([['Ann', B, ...written(foundA)]]);
    const blocks = [blockOf(sheet, 1, 1, { urlColumn: 2 })];
    // The name and the URL edited together: the URL's result is cleared.
    expect(clearIn(platformFor(sheet, { row: 1, column: 1, rows: 1, columns: 2 }, undefined, blocks))).toBe(
      1,
    );
    expect(sheet.rows[0]).toEqual(['Ann', B, '', '', '', '']);
    // Pasted over the output cells too: those are the person's now.
    const pasted = new MemorySheet([['Ann', B, ...written(foundA)]]);
    const wide = { row: 1, column: 1, rows: 1, columns: 4 };
    expect(clearIn(platformFor(pasted, wide, undefined, [blockOf(pasted, 1, 1, { urlColumn: 2 })]))).toBe(0);
    expect(pasted.rows[0][2]).toBe('a@acme.test');
  });

  it('clears Account type and Name too when the block wrote them', () => {
    const sheet = new MemorySheet([[B, ...written(foundA, true), 'mine']]);
    expect(clearIn(platformFor(sheet, one(1), A, [blockOf(sheet, 1, 1, { extraFields: true })]))).toBe(1);
    expect(sheet.rows[0]).toEqual([B, '', '', '', '', '', '', 'mine']);
  });

  it('leaves the extra columns when the block beside the URLs did not write them (another one did, elsewhere)', () => {
    const sheet = new MemorySheet([[B, ...written(foundA), 'their data', 'x']]);
    const blocks = [
      blockOf(sheet, 1, 1),
      blockOf(sheet, 1, 1, { urlColumn: 3, outputColumn: 4, extraFields: true }),
    ];
    expect(clearIn(platformFor(sheet, one(1), A, blocks))).toBe(1);
    expect(sheet.rows[0].slice(5)).toEqual(['their data', 'x']);
  });

  it("does nothing without edited cells (AuthMode.NONE), for a huge paste, or on a sheet without the add-on's blocks", () => {
    const sheet = new MemorySheet([[B, ...written(foundA)]], { columns: 5 });
    const blocks = [blockOf(sheet, 1, 1)];
    expect(clearIn(platformFor(sheet, null, A, blocks))).toBe(0);
    expect(clearIn(platformFor(sheet, { row: 1, column: 1, rows: 5001, columns: 1 }, A, blocks))).toBe(0);
    // No block of the add-on's: the trigger's one property read, nothing else.
    const bare = platformFor(sheet, one(1), A, []);
    expect(clearIn(bare)).toBe(0);
    expect(bare.properties.calls).toBe(1);
    expect(sheet.writes).toBe(0);
  });
});
