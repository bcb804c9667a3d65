/** The watch's (src/watch/) one way into the bulk run: its runs are slices of a bulk run over the watched rows. */
import type { PlacementKind, Settings } from '../api';
import type { Platform } from '../core/ports';
import type { Job } from './job';
import { transitionStored } from './jobStore';
import { type ColumnPlanner, columnPlanner, type PlannedRun } from './plan';
import { createUnderLock } from './start';

export type { Block } from './blocks';
export type { Job } from './job';
export { isActive } from './jobMachine';
export { hasDocument, loadJob } from './jobStore';
export type { ColumnRead } from './placement';
export { blocksOn, type ColumnPlanner, type PlannedRun, readColumn, trialRead } from './plan';
export { processSlice as driveSlice } from './slice';
export { checkKeyForRun } from './start';

/** Rows without a result, no plan shown first (nobody confirms a trigger's run: the watch's daily limit bounds it). */
export function watchPlanner(
  platform: Platform,
  settings: Settings,
  placement: PlacementKind | undefined,
): ColumnPlanner {
  return columnPlanner(platform, settings, { mode: 'new', placement }, Number.POSITIVE_INFINITY);
}

/** Null when another run is under way. */
export function createWatchRun(
  platform: Platform,
  planned: PlannedRun,
  creatorId: string,
  creatorName: string,
): Job | null {
  const outcome = platform.lock.with(() =>
    createUnderLock(platform, planned, creatorId, 'watch', creatorName),
  );
  return 'created' in outcome ? outcome.created : null;
}

export function cancelRun(platform: Platform, jobId: string): void {
  transitionStored(platform, { type: 'cancel' }, (stored) => stored.id === jobId);
}
