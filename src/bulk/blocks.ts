/**
 * The cells the add-on owns: the output blocks runs wrote, recorded in document properties and moved with the sheet
 * (./relocate.ts). A cell's look may confirm ownership, never decide it; a block that can no longer be placed is dropped.
 */
import { outputHeaders } from '../core/cells';
import { PROPERTY_RECORD_BYTES } from '../core/limits';
import type { Properties } from '../core/ports';
import { BLOCKS_PROPERTY, JOB_PROPERTY } from '../core/propertyNames';
import type { SheetPort } from '../core/sheet';
import { isRecord, parseStored } from '../core/storedJson';
import { utf8Bytes } from '../core/text';
import type { Job } from './job';
import { parseJob } from './jobStore';
import { FRAME_FIELDS, type Frame, relocate } from './relocate';

export type Block = Frame & { id: string };

export function widthOf(frame: Pick<Frame, 'extraFields'>): number {
  return 1 + outputHeaders(frame.extraFields).length;
}

export function frameOf(job: Job): Block {
  return { id: job.id, ...(Object.fromEntries(FRAME_FIELDS.map((field) => [field, job[field]])) as Frame) };
}

const NUMBER_FIELDS = [
  'sheetId',
  'urlColumn',
  'outputColumn',
  'firstRow',
  'lastRow',
  'maxRows',
  'maxColumns',
];

function isBlock(value: unknown): value is Block {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    NUMBER_FIELDS.every((field) => typeof value[field] === 'number')
  );
}

export function parseBlocks(raw: string | null | undefined): Block[] {
  const parsed = parseStored(raw);
  return Array.isArray(parsed) ? parsed.filter(isBlock) : [];
}

/** One property value holds 9 KB (apps-script/guides/services/quotas): the oldest blocks go. */
function fitting(blocks: Block[]): Block[] {
  const kept = [...blocks];
  while (kept.length > 0 && utf8Bytes(JSON.stringify(kept)) > PROPERTY_RECORD_BYTES) kept.pop();
  return kept;
}

/** `pef.blocks`, plus the frame of the job under way unless `pef.blocks` already has its entry. */
export function recordedBlocks(all: { blocks?: string | null; job?: string | null }): Block[] {
  const blocks = parseBlocks(all.blocks);
  const job = parseJob(all.job);
  return job && !blocks.some((block) => block.id === job.id) ? [...blocks, frameOf(job)] : blocks;
}

/** Call it holding the document lock. */
export function recordBlock(platform: { documentProperties(): Properties }, block: Block): void {
  const props = platform.documentProperties();
  // Newest first, replacing the entry of `block`'s run.
  const kept = parseBlocks(props.getProperty(BLOCKS_PROPERTY)).filter((old) => old.id !== block.id);
  props.setProperty(BLOCKS_PROPERTY, JSON.stringify(fitting([block, ...kept])));
}

export function readBlocks(props: { getProperty(key: string): string | null }): Block[] {
  return recordedBlocks({ blocks: props.getProperty(BLOCKS_PROPERTY), job: props.getProperty(JOB_PROPERTY) });
}

/** The blocks of `sheet` moved with its inserted or deleted rows and columns; `moved`: some block moved or went. */
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

export function replacedOn(blocks: readonly Block[], sheetId: number, placed: readonly Block[]): Block[] {
  return fitting([...placed, ...blocks.filter((block) => block.sheetId !== sheetId)]);
}

/** ColumnRead's `owned`: the rows and widths the blocks beside `urlColumn` own, by first output column. */
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

/** `columns` absent: as wide as asked. */
export type OwnedRows = readonly [first: number, last: number, columns?: number];

export function ownedColumns(ranges: readonly OwnedRows[], row: number): number {
  return Math.max(
    0,
    ...ranges.map(([first, last, columns]) =>
      row >= first && row <= last ? (columns ?? Number.POSITIVE_INFINITY) : 0,
    ),
  );
}

export function inRanges(ranges: readonly OwnedRows[], row: number): boolean {
  return ranges.some(([first, last]) => row >= first && row <= last);
}
