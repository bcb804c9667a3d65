/**
 * What the bulk run offers the watch (src/watch/), its one way into this room: a column read and planned as a run
 * plans it, the watch's run created, driven one slice at a time and cancelled, and the run under way. A watch's
 * trigger run is slices of a bulk run over the watched rows.
 */
import type { PlacementKind, Progress, Settings } from '../api';
import type { Platform } from '../platform/platform';
import type { Job } from './job';
import { isActive, transition } from './jobMachine';
import { updateJob } from './jobStore';
import type { PlannedRun } from './plan';
import { type ColumnPlanner, columnPlanner } from './planner';
import { processSlice } from './slice';
import { createUnderLock } from './start';

export type { Block } from './blocks';
export type { Job } from './job';
export { isActive } from './jobMachine';
export { hasDocument, loadJob } from './jobStore';
export type { ColumnRead } from './placement';
export { blocksOn, type PlannedRun, readColumn } from './plan';
export type { ColumnPlanner } from './planner';
export { checkKeyForRun } from './runKeyCheck';
export { trialRead } from './trial';

/**
 * The planner of the watch's runs: the bulk run's own (./planner.ts) over every row without a result, none shown
 * first (no one is there to confirm a trigger run's plan: the watch's daily limit bounds it instead).
 */
export function watchPlanner(
  platform: Platform,
  settings: Settings,
  placement: PlacementKind | undefined,
): ColumnPlanner {
  return columnPlanner(platform, settings, { mode: 'new', placement }, Number.POSITIVE_INFINITY);
}

/** Creates the watch's run over `planned` under the document lock; null when another run is under way. */
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

/** One slice of the run `jobId`, as its owner `runnerId`. */
export function driveSlice(platform: Platform, jobId: string, runnerId: string): Progress {
  return processSlice(platform, jobId, runnerId);
}

/** Cancels the run `jobId` when it is still active (the watch's own run never stays paused). */
export function cancelRun(platform: Platform, jobId: string): void {
  updateJob(platform, (stored) => {
    if (!stored || stored.id !== jobId || !isActive(stored.state)) return stored;
    const now = platform.clock.now();
    return { ...transition(stored, { type: 'cancel' }, now), updatedAt: now };
  });
}
