/**
 * How a run prices a column read, one way for every run (the sidebar's and the watch's): ./runPlan.ts with the run's
 * options, the result store read once per profile.
 */
import type { PlacementKind, RunPlan, RunRequest, Settings } from '../api';
import type { Platform } from '../platform/platform';
import type { ColumnRead } from './placement';
import { planRun } from './runPlan';
import { rememberingStore } from './trial';

/** The plan of a read of the column; `chosen`: the placement asked for (default: the request's). */
export type ColumnPlanner = (read: ColumnRead, chosen?: PlacementKind) => RunPlan;

/**
 * The planner of a run asked by `request` for a person with `settings`. `startAtOnceUnder`: runs under this many
 * credits start without their plan (null: every run shows it first).
 */
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
  const store = platform.lookupPorts(false).store;
  const stored = rememberingStore((keys) => store.getMany(keys));
  return (read, chosen = request.placement) => planRun(read, { ...options, chosen }, stored);
}
