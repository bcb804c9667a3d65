/**
 * Which rows a run touches, in which pass, and which results it already holds: built once per run from its
 * settings (all rows or Retry failed rows, re-check, whether the output columns are read) and asked by the plan,
 * the start's counts, the row planning and the slice. Pure.
 */
import type { PlacementKind, RunMode } from '../api';
import { CELL, STATUS } from '../core/cells';
import type { LookupResult } from '../lookup/result';
import { isAddonOutput, isBlank, isFailedStatus, isOwnStatus, statusOfRow } from './rowCells';

export interface RunScopeSettings {
  /** Retry failed rows: only rows with one of these statuses of the add-on's (null: a run over every row). */
  redo: readonly string[] | null;
  /** Rows with a result of the add-on's are looked up again (a credit each), in the first pass. */
  recheck: boolean;
  /** The output columns exist and are read; inserted columns start empty. */
  readsOutput: boolean;
  /** Only rows without any status (a watch's runs). */
  newRowsOnly?: boolean;
}

/** The statuses a run redoes: ERROR (and UNPROCESSABLE when asked), or null for a run over every row. */
export function redoStatuses(mode: RunMode, includeUnprocessable: boolean): string[] | null {
  if (mode !== 'retry') return null;
  return includeUnprocessable ? [STATUS.error, STATUS.unprocessable] : [STATUS.error];
}

/** Whether a run with this placement reads the output columns (an inserted column holds nothing yet). */
export function readsOutput(kind: PlacementKind): boolean {
  return kind !== 'insert';
}

export class RunScope {
  readonly redo: readonly string[] | null;
  readonly recheck: boolean;
  /** The output columns exist and are read (inserted columns start empty). */
  readonly readsOutput: boolean;
  readonly newRowsOnly: boolean;

  constructor(settings: RunScopeSettings) {
    this.redo = settings.redo;
    this.recheck = settings.recheck && !settings.redo;
    this.readsOutput = settings.readsOutput;
    this.newRowsOnly = settings.newRowsOnly === true;
  }

  /** A run planned: all rows or Retry failed rows, re-check (a run over all rows only), where its results go. */
  static forRun(
    run: { mode: RunMode; includeUnprocessable: boolean; recheck: boolean },
    placement: PlacementKind,
  ): RunScope {
    return new RunScope({
      redo: redoStatuses(run.mode, run.includeUnprocessable),
      recheck: run.mode === 'all' && run.recheck,
      readsOutput: readsOutput(placement),
      newRowsOnly: run.mode === 'new',
    });
  }

  /** A run under way: its output columns exist (inserted ones were empty when it started). */
  static ofJob(job: { recheck: boolean; redo?: readonly string[]; origin?: 'watch' }): RunScope {
    return new RunScope({
      redo: job.redo ?? null,
      recheck: job.recheck,
      readsOutput: true,
      newRowsOnly: job.origin === 'watch',
    });
  }

  /**
   * The run works on a row with this status (and Email cell) in this pass: Retry failed rows on the add-on's
   * statuses it redoes; a re-check's first pass on every row empty or holding the add-on's result; otherwise a
   * row without a status, or (first pass) with ERROR (retried) or INVALID_URL (checked again, free). Later passes
   * only pick up rows without a status: the ones written this run are final.
   */
  touches(status: string, email: unknown, pass: number): boolean {
    const read = this.readsOutput ? status : '';
    const own = isOwnStatus(read, this.readsOutput ? email : '');
    if (this.redo) return own && this.redo.includes(read);
    if (this.newRowsOnly) return read === '';
    if (this.recheck && pass === 1) return read === '' || own;
    return read === '' || (pass === 1 && isFailedStatus(read));
  }

  /** `touches` for a row read from the sheet (the URL cell, then the output cells). */
  touchesRow(row: unknown[], pass: number): boolean {
    return this.touches(statusOfRow(row), row[CELL.email], pass);
  }

  /**
   * The run may write this row now: it touches it, and its output cells are empty, or `owned` (a recorded block's,
   * src/bulk/blocks.ts) with the add-on's status in them. Asked right before writing: a sort, an insertion or a
   * person may have changed the row since it was planned.
   */
  mayWrite(row: unknown[] | undefined, pass: number, owned: boolean): boolean {
    if (!row || !this.touchesRow(row, pass)) return false;
    const output = row.slice(CELL.email);
    return output.every(isBlank) || (owned && isAddonOutput(output));
  }

  /**
   * A stored result the run takes as it is (free): any saved since the run started; one saved before, unless
   * the run re-checks, or retries rows of its kind (an unusable answer is an ERROR row, the one being retried).
   */
  keepsStored(result: LookupResult, savedSinceStart: boolean): boolean {
    if (savedSinceStart) return true;
    if (this.recheck) return false;
    const redone =
      result.kind === 'unusable' ? STATUS.error : result.kind === 'unprocessable' ? STATUS.unprocessable : '';
    return !this.redo?.includes(redone);
  }

  /**
   * A row may copy the result the add-on wrote in another row of the run with the same profile: never in Retry
   * failed rows, nor in a re-check's first pass (every row is looked up again).
   */
  copiesWritten(pass: number): boolean {
    return !this.redo && (pass > 1 || !this.recheck);
  }
}
