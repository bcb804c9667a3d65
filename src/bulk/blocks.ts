/**
 * The cells the add-on owns: every block of output columns a run (or a watch's run) wrote, beside its URL column,
 * recorded in document properties and moved with the sheet as a run's own cells are (./relocate.ts). A cell is the
 * add-on's only inside such a block: the look of a cell may confirm that, never decide it. A block that can no
 * longer be placed (columns inserted inside it, a sheet without a header) is dropped, and its cells are left alone.
 */
import { outputHeaders } from '../core/cells';
import { PROPERTY_RECORD_BYTES } from '../core/limits';
import { BLOCKS_PROPERTY, JOB_PROPERTY } from '../core/propertyNames';
import type { SheetPort } from '../core/sheet';
import { utf8Bytes } from '../core/text';
import type { Properties } from '../platform/platform';
import type { Job } from './job';
import { parseJob } from './jobStore';
import { type Frame, relocate } from './relocate';

export type { Frame } from './relocate';

/** A recorded block: the frame of the run that wrote it (`id`: that run's). */
export type Block = Frame & { id: string };

/** The blocks' record in one property value, below its 9 KB (apps-script/guides/services/quotas): the oldest go. */
const BLOCKS_BYTES = PROPERTY_RECORD_BYTES;

export function widthOf(frame: Pick<Frame, 'extraFields'>): number {
  return 1 + outputHeaders(frame.extraFields).length;
}

export function frameOf(job: Job): Block {
  return {
    id: job.id,
    sheetId: job.sheetId,
    urlColumn: job.urlColumn,
    outputColumn: job.outputColumn,
    extraFields: job.extraFields,
    headerRow: job.headerRow,
    firstRow: job.firstRow,
    lastRow: job.lastRow,
    maxRows: job.maxRows,
    maxColumns: job.maxColumns,
    topValue: job.topValue,
    bottomValue: job.bottomValue,
    headerTexts: job.headerTexts,
  };
}

function isBlock(value: unknown): value is Block {
  const block = value as Block;
  return (
    typeof block === 'object' &&
    block !== null &&
    typeof block.id === 'string' &&
    ['sheetId', 'urlColumn', 'outputColumn', 'firstRow', 'lastRow', 'maxRows', 'maxColumns'].every(
      (field) => typeof (block as unknown as Record<string, unknown>)[field] === 'number',
    )
  );
}

export function parseBlocks(raw: string | null | undefined): Block[] {
  try {
    const parsed: unknown = JSON.parse(raw ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isBlock) : [];
  } catch {
    return [];
  }
}

/** The recorded blocks with `block` in them (replacing the one of its run), newest first, as many as fit. */
export function withBlock(blocks: readonly Block[], block: Block): Block[] {
  return fitting([block, ...blocks.filter((kept) => kept.id !== block.id)]);
}

/** The first blocks whose record fits one property value; the cells of the others are left alone from then on. */
function fitting(blocks: Block[]): Block[] {
  const kept = [...blocks];
  while (kept.length > 0 && utf8Bytes(JSON.stringify(kept)) > BLOCKS_BYTES) kept.pop();
  return kept;
}

/**
 * Every block recorded in `all` (the document properties): those of `pef.blocks`, and the frame of the job, which a
 * run keeps current while it is under way (its own entry in `pef.blocks` wins once it was moved without it).
 */
export function recordedBlocks(all: { blocks?: string | null; job?: string | null }): Block[] {
  const blocks = parseBlocks(all.blocks);
  const job = parseJob(all.job);
  return job && !blocks.some((block) => block.id === job.id) ? [...blocks, frameOf(job)] : blocks;
}

/** Records `block` (the cells of a run that ended). Call it holding the document lock. */
export function recordBlock(platform: { documentProperties(): Properties }, block: Block): void {
  const props = platform.documentProperties();
  props.setProperty(
    BLOCKS_PROPERTY,
    JSON.stringify(withBlock(parseBlocks(props.getProperty(BLOCKS_PROPERTY)), block)),
  );
}

/** The recorded blocks as one execution reads them: two property reads. */
export function readBlocks(props: { getProperty(key: string): string | null }): Block[] {
  return recordedBlocks({ blocks: props.getProperty(BLOCKS_PROPERTY), job: props.getProperty(JOB_PROPERTY) });
}

/**
 * The blocks of `sheet` where they are now: each moved with the rows and columns inserted or deleted since it was
 * recorded, those that cannot be placed any more left out. `moved`: some block moved or went (worth recording).
 */
export function placedOn(blocks: readonly Block[], sheet: SheetPort): { placed: Block[]; moved: boolean } {
  const placed: Block[] = [];
  let moved = false;
  let size: { rows: number; columns: number } | undefined;
  for (const block of blocks) {
    if (block.sheetId !== sheet.id) continue;
    size ??= { rows: sheet.maxRows(), columns: sheet.maxColumns() };
    if (block.maxRows === size.rows && block.maxColumns === size.columns) {
      placed.push(block);
      continue;
    }
    moved = true;
    const copy: Block = { ...block };
    if (relocate(copy, sheet, widthOf(copy))) placed.push(copy);
  }
  return { placed, moved };
}

/** The recorded blocks with those of `sheetId` as placed now (the others as they were). */
export function replacedOn(blocks: readonly Block[], sheetId: number, placed: readonly Block[]): Block[] {
  return fitting([...placed, ...blocks.filter((block) => block.sheetId !== sheetId)]);
}

/** The block whose output columns hold this cell, on a row of its own. */
export function blockAt(blocks: readonly Block[], row: number, column: number): Block | undefined {
  return blocks.find(
    (block) =>
      row >= block.firstRow &&
      row <= block.lastRow &&
      column >= block.outputColumn &&
      column < block.outputColumn + widthOf(block) - 1,
  );
}

/** The rows whose output cells from `outputColumn` on the blocks of `urlColumn` own (a range each). */
export function ownedRows(
  blocks: readonly Block[],
  place: { urlColumn: number; outputColumn: number },
): Array<[number, number]> {
  return blocks
    .filter((block) => block.urlColumn === place.urlColumn && block.outputColumn === place.outputColumn)
    .map((block): [number, number] => [block.firstRow, block.lastRow]);
}

/**
 * What the blocks beside `urlColumn` own, by their first output column (ColumnRead's `owned`): their rows, and how
 * many output columns from there.
 */
export function ownedBeside(blocks: readonly Block[], urlColumn: number): Map<number, OwnedRows[]> {
  const owned = new Map<number, OwnedRows[]>();
  for (const block of blocks) {
    if (block.urlColumn !== urlColumn) continue;
    const ranges = owned.get(block.outputColumn) ?? [];
    ranges.push([block.firstRow, block.lastRow, widthOf(block) - 1]);
    owned.set(block.outputColumn, ranges);
  }
  return owned;
}

/** Rows `first`..`last` of a block, `columns` output columns wide (absent: as wide as asked). */
export type OwnedRows = readonly [first: number, last: number, columns?: number];

/** How many output columns of `row` these ranges own (0: none). */
export function ownedColumns(ranges: readonly OwnedRows[], row: number): number {
  return Math.max(
    0,
    ...ranges.map(([first, last, columns]) =>
      row >= first && row <= last ? (columns ?? Number.POSITIVE_INFINITY) : 0,
    ),
  );
}

/** A row inside one of these ranges. */
export function inRanges(ranges: readonly OwnedRows[], row: number): boolean {
  return ranges.some(([first, last]) => row >= first && row <= last);
}
