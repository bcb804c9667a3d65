/**
 * Results follow their URL: onEdit clears the add-on's results (in its blocks) beside URL cells naming another profile.
 * onEdit runs on every edit, in AuthMode.LIMITED, for at most 30 s (apps-script/guides/triggers#restrictions).
 */
import { MAX_EDITED_ROWS } from '../core/limits';
import type { Platform } from '../core/ports';
import { BLOCKS_PROPERTY, JOB_PROPERTY } from '../core/propertyNames';
import type { SheetPort } from '../core/sheet';
import { type ProfileInput, parseProfileInput } from '../core/url';
import { enrichmentRow } from '../lookup/cellValues';
import type { LookupResult } from '../lookup/result';
import { storeOf } from '../store/store';
import { type Block, placedOn, recordedBlocks, replacedOn, widthOf } from './blocks';
import { isActive } from './jobMachine';
import { loadJob } from './jobStore';
import { cellText, isBlank, isOwnStatus } from './rowCells';
import { adjacentRuns } from './rowPlan';

/** `all`: the document properties as the trigger read them. Returns how many rows were cleared. */
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

function rowsOf(sheet: SheetPort, owner: Block, row: number, rows: number, width: number): unknown[][] {
  if (owner.outputColumn === owner.urlColumn + 1)
    return sheet.values({ row, column: owner.urlColumn, rows, columns: 1 + width });
  const urls = sheet.values({ row, column: owner.urlColumn, rows, columns: 1 });
  const outputs = sheet.values({ row, column: owner.outputColumn, rows, columns: width });
  return urls.map((url, index) => [url[0], ...outputs[index]]);
}

/** Rows showing exactly the add-on's result for another profile: `old`'s (one cell edited), else any stored one. */
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
  const store = storeOf(platform);
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

/** Best effort; a run under way keeps its own block (its slices move it). */
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
