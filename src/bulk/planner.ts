/** How every run (the sidebar's and the watch's) prices a column read, the store read once per profile. */
import type { PlacementKind, RunPlan, RunRequest, Settings } from '../api';
import type { Platform } from '../core/ports';
import { storeOf } from '../store/store';
import type { ColumnRead } from './placement';
import { planRun } from './runPlan';
import { rememberingStore } from './trial';

export type ColumnPlanner = (read: ColumnRead, chosen?: PlacementKind) => RunPlan;

/** `startAtOnceUnder`: runs under this many credits start without their plan (null: every run shows it first). */
export function columnPlanner(
  platform: Platform,
  settings: Settings,
  request: Pick<RunRequest, 'mode' | 'includeUnprocessable' | 'recheck' | 'placement'>,
  startAtOnceUnder: number | null,
): ColumnPlanner {
  const options = {
    mode: request.mode ?? 'all',
    includeUnprocessable: request.includeUnprocessable === true,
    recheck: request.recheck === true,
    extraFields: settings.extraFields,
    startAtOnceUnder,
    hosts: platform.config().networkHosts,
  };
  const store = storeOf(platform);
  const stored = rememberingStore((keys) => store.getMany(keys));
  return (read, chosen = request.placement) => planRun(read, { ...options, chosen }, stored);
}
