/**
 * Results follow their URL: when a person edits or pastes over URL cells, the simple trigger onEdit clears the
 * add-on's result beside each one that now names another profile, so the next run looks the new URL up instead of
 * leaving the old person's address there. Only cells of the add-on's recorded blocks (./blocks.ts) are cleared, on
 * rows whose URL cell holds or held a profile, and only where the cells show the add-on's status; another spelling
 * of the same profile keeps its result.
 *
 * onEdit runs on every edit of every editor, in AuthMode.LIMITED (or NONE: nothing at all), for at most 30 s
 * (apps-script/guides/triggers#restrictions): one property read when the sheet holds no block of the add-on.
 */

import { MAX_EDITED_ROWS } from '../core/limits';
import { BLOCKS_PROPERTY, JOB_PROPERTY } from '../core/propertyNames';
import type { SheetPort } from '../core/sheet';
import { type ProfileInput, parseProfileInput } from '../core/url';
import { enrichmentRow } from '../lookup/cellValues';
import type { LookupResult } from '../lookup/result';
import type { Platform } from '../platform/platform';
import { type Block, placedOn, recordedBlocks, replacedOn, widthOf } from './blocks';
import { isActive } from './jobMachine';
import { loadJob } from './jobStore';
import { cellText, isBlank, isOwnStatus } from './rowCells';
import { adjacentRuns } from './rowPlan';

/**
 * Clears the add-on's results beside edited URL cells; `all`: the document properties as the trigger read them
 * (one call). Returns how many rows were cleared.
 */
export function clearStaleResults(platform: Platform, event: unknown, all: Record<string, string>): number {
  const edit = platform.editedCells(event);
  if (!edit) return 0;
  const { sheet, block } = edit;
  if (block.rows > MAX_EDITED_ROWS) return 0;
  const recorded = recordedBlocks({ blocks: all[BLOCKS_PROPERTY], job: all[JOB_PROPERTY] });
  if (!recorded.some((owner) => owner.sheetId === sheet.id)) return 0;
  const { placed, moved } = placedOn(recorded, sheet);
  if (moved) keepPlaced(platform, recorded, sheet.id, placed);
  const hosts = platform.config().networkHosts;
  const single = block.rows === 1 && block.columns === 1;
  const old = single ? parseProfileInput(edit.oldValue, hosts) : undefined;
  let cleared = 0;
  for (const owner of placed) {
    const width = widthOf(owner) - 1;
    const lastColumn = block.column + block.columns - 1;
    if (owner.urlColumn < block.column || owner.urlColumn > lastColumn) continue;
    // Output cells written in the same edit are the person's now.
    if (owner.outputColumn <= lastColumn && owner.outputColumn + width - 1 >= block.column) continue;
    const first = Math.max(block.row, owner.firstRow);
    const last = Math.min(block.row + block.rows - 1, owner.lastRow);
    if (first > last) continue;
    const rows = rowsOf(sheet, owner, first, last - first + 1, width);
    const stale = staleRows(platform, rows, (url) => parseProfileInput(url, hosts), old, owner.extraFields);
    for (const run of adjacentRuns(stale))
      sheet.clear({ row: first + run.from, column: owner.outputColumn, rows: run.count, columns: width });
    cleared += stale.length;
  }
  return cleared;
}

/** Each row's URL cell, then its output cells: one read when they are side by side. */
function rowsOf(sheet: SheetPort, owner: Block, row: number, rows: number, width: number): unknown[][] {
  if (owner.outputColumn === owner.urlColumn + 1)
    return sheet.values({ row, column: owner.urlColumn, rows, columns: 1 + width });
  const urls = sheet.values({ row, column: owner.urlColumn, rows, columns: 1 });
  const outputs = sheet.values({ row, column: owner.outputColumn, rows, columns: width });
  return urls.map((url, index) => [url[0], ...outputs[index]]);
}

/**
 * The rows (indices) whose output cells are exactly what the add-on wrote for another profile than their URL names
 * now: a single cell's edit compares them with the stored result of the URL before (`old`); a paste, which tells no
 * old value, with every stored result, and keeps a row that shows its new URL's own.
 */
function staleRows(
  platform: Platform,
  rows: unknown[][],
  parse: (url: unknown) => ProfileInput,
  old: ProfileInput | undefined,
  extraFields: boolean,
): number[] {
  const candidates = rows.flatMap((row, index) => {
    const output = row.slice(1);
    if (output.every(isBlank) || !isOwnStatus(output[1], output[0])) return [];
    const now = parse(row[0]);
    if (old?.kind === 'url' && now.kind === 'url' && old.key === now.key) return [];
    if (old && old.kind !== 'url') return [];
    return [{ index, now, output: output.map(cellText).join('\u0001') }];
  });
  if (candidates.length === 0) return [];
  const written = (result: LookupResult) => enrichmentRow(result, extraFields).map(cellText).join('\u0001');
  const store = platform.resultStore();
  if (old?.kind === 'url') {
    const result = store.getMany([old.key]).get(old.key);
    return result
      ? candidates.filter(({ output }) => output === written(result)).map(({ index }) => index)
      : [];
  }
  const keys = candidates.flatMap(({ now }) => (now.kind === 'url' ? [now.key] : []));
  const own = store.getMany(keys);
  const every = new Set([...store.allResults()].map(written));
  return candidates
    .filter(({ now, output }) => {
      const mine = now.kind === 'url' ? own.get(now.key) : undefined;
      return every.has(output) && (!mine || written(mine) !== output);
    })
    .map(({ index }) => index);
}

/**
 * Records where the blocks of `sheetId` are now (they moved with the sheet, or could not be placed), so the next
 * edit finds them without looking again; a run under way keeps its own (its slices move it). Best effort.
 */
function keepPlaced(platform: Platform, recorded: Block[], sheetId: number, placed: Block[]): void {
  try {
    platform.lock.tryWith(() => {
      const job = loadJob(platform);
      const live = job && isActive(job.state) ? job.id : undefined;
      const kept = replacedOn(recorded, sheetId, placed).filter((owner) => owner.id !== live);
      platform.documentProperties().setProperty(BLOCKS_PROPERTY, JSON.stringify(kept));
    });
  } catch {
    // The next edit places them again.
  }
}
