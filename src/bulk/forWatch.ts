/** The watch's (src/watch/) one way into the bulk run: its runs are slices of a bulk run over the watched rows. */
import type { PlacementKind, Progress, Settings } from '../api';
import type { Platform } from '../core/ports';
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

export function driveSlice(platform: Platform, jobId: string, runnerId: string): Progress {
  return processSlice(platform, jobId, runnerId);
}

export function cancelRun(platform: Platform, jobId: string): void {
  updateJob(platform, (stored) => {
    if (!stored || stored.id !== jobId || !isActive(stored.state)) return stored;
    const now = platform.clock.now();
    return { ...transition(stored, { type: 'cancel' }, now), updatedAt: now };
  });
}
