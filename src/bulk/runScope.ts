/** Which rows a run touches, in which pass, and which results it already holds. Pure. */
import type { PlacementKind, RunMode } from '../api';
import { CELL, STATUS } from '../core/cells';
import type { LookupResult } from '../lookup/result';
import { isAddonOutput, isBlank, isFailedStatus, isOwnStatus, statusOfRow } from './rowCells';

export interface RunScopeSettings {
  /** Retry failed rows: only rows with these statuses of the add-on's (null: every row). */
  redo: readonly string[] | null;
  /** The first pass looks rows with a result of the add-on's up again. */
  recheck: boolean;
  /** Inserted output columns start empty and are not read. */
  readsOutput: boolean;
  /** A watch's runs: only rows without any status. */
  newRowsOnly?: boolean;
}

export class RunScope {
  readonly redo: readonly string[] | null;
  readonly recheck: boolean;
  readonly readsOutput: boolean;
  readonly newRowsOnly: boolean;

  constructor(settings: RunScopeSettings) {
    this.redo = settings.redo;
    this.recheck = settings.recheck && !settings.redo;
    this.readsOutput = settings.readsOutput;
    this.newRowsOnly = settings.newRowsOnly === true;
  }

  static forRun(
    run: { mode: RunMode; includeUnprocessable: boolean; recheck: boolean },
    placement: PlacementKind,
  ): RunScope {
    const failed = run.includeUnprocessable ? [STATUS.error, STATUS.unprocessable] : [STATUS.error];
    return new RunScope({
      redo: run.mode === 'retry' ? failed : null,
      recheck: run.mode === 'all' && run.recheck,
      readsOutput: placement !== 'insert',
      newRowsOnly: run.mode === 'new',
    });
  }

  /** A run under way: its output columns exist. */
  static ofJob(job: { recheck: boolean; redo?: readonly string[]; origin?: 'watch' }): RunScope {
    return new RunScope({
      redo: job.redo ?? null,
      recheck: job.recheck,
      readsOutput: true,
      newRowsOnly: job.origin === 'watch',
    });
  }

  /** Later passes only pick up rows without a status: the ones written this run are final. */
  touches(status: string, email: unknown, pass: number): boolean {
    const read = this.readsOutput ? status : '';
    const own = isOwnStatus(read, this.readsOutput ? email : '');
    if (this.redo) return own && this.redo.includes(read);
    if (this.newRowsOnly) return read === '';
    if (this.recheck && pass === 1) return read === '' || own;
    return read === '' || (pass === 1 && isFailedStatus(read));
  }

  touchesRow(row: unknown[], pass: number): boolean {
    return this.touches(statusOfRow(row), row[CELL.email], pass);
  }

  /** Asked right before writing: the row may have changed since it was planned. */
  mayWrite(row: unknown[] | undefined, pass: number, owned: boolean): boolean {
    if (!row || !this.touchesRow(row, pass)) return false;
    const output = row.slice(CELL.email);
    return output.every(isBlank) || (owned && isAddonOutput(output));
  }

  /** An unusable answer is an ERROR row: a retry of ERROR rows buys it again. */
  keepsStored(result: LookupResult, savedSinceStart: boolean): boolean {
    if (savedSinceStart) return true;
    if (this.recheck) return false;
    const redone =
      result.kind === 'unusable' ? STATUS.error : result.kind === 'unprocessable' ? STATUS.unprocessable : '';
    return !this.redo?.includes(redone);
  }

  /** A row may copy another row's result for the same profile. */
  copiesWritten(pass: number): boolean {
    return !this.redo && (pass > 1 || !this.recheck);
  }
}
