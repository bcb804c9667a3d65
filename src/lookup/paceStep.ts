/**
 * The pace of =FINDEMAIL: the pace kept for the formulas loaded (the document cache, else the document property's
 * copy) and kept when the session closes (the cache, and the property when it says something new). A bulk run
 * keeps its pace in its job (src/bulk/runPace.ts).
 */
import { loadPace, type Pacer } from './pace';
import type { LookupPorts } from './ports';
import type { LookupPolicy } from './session';

export interface PaceSpec {
  /** PACE_SCOPES: 'bulk' or 'formula'. */
  scope: string;
  /** Requests in the first batch when nothing is known. */
  start: number;
  /** Requests in flight at most. */
  cap: number;
  /** The document property's copy of the pace (read when needed). */
  kept(): string | undefined;
  /** Writes the document property's copy. */
  keep(value: string): void;
}

export interface PaceStep {
  pacer: Pacer;
  /** The session's `pace` (kept when it closes). */
  policy: NonNullable<LookupPolicy['pace']>;
}

export function openPace(ports: LookupPorts, spec: PaceSpec): PaceStep {
  const { cache, clock } = ports;
  const pacer = loadPace(cache, spec.scope, spec.start, spec.cap, clock.now(), spec.kept());
  const keep = (kept: Pacer) => {
    kept.save(cache, spec.scope);
    const value = kept.keptValue(spec.kept(), clock.now());
    if (value) spec.keep(value);
  };
  return { pacer, policy: { pacer, scope: spec.scope, keep } };
}
