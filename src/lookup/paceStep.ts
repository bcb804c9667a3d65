/**
 * One pace step for =FINDEMAIL and the bulk run: the pace kept for the scope loaded (the document cache, else the
 * document property's copy), started from what the key's service showed elsewhere while it has sent no lookup,
 * shared with the run's other slices when asked (./sharedPace.ts), and kept when the session closes (the cache,
 * the property when it says something new, the key's figure when the service limited it).
 */
import { keyPaceValue, loadPace, type Pacer, startFromKey } from './pace';
import type { BatchSizer, LookupPorts } from './ports';
import type { LookupPolicy } from './session';
import { SharedPace } from './sharedPace';

export interface PaceSpec {
  /** PACE_SCOPES: 'bulk' or 'formula'. */
  scope: string;
  /** Requests in the first batch when nothing is known. */
  start: number;
  /** Requests in flight at most (across the run's slices for a shared pace). */
  cap: number;
  /** The document property's copy of the pace (read when needed). */
  kept(): string | undefined;
  /** Writes the document property's copy. */
  keep(value: string): void;
  /** What the user's key's service took (KEY_PACE_PROPERTY, by the key's hash): read at the start, kept at the end. */
  key?: { hash: string; read(): string | undefined; write(value: string): void };
  /** A slice of a bulk run: its token among the run's slices, and the most requests of one fetchAll. */
  shared?: { token: string; batchCap: number };
}

export interface PaceStep {
  pacer: Pacer;
  /** The pipeline's sizer: the pacer, or its share of the run's pace. */
  sizer: BatchSizer;
  /** Set for a slice of a bulk run. */
  shared?: SharedPace;
  /** The session's `pace` (kept when it closes). */
  policy: NonNullable<LookupPolicy['pace']>;
}

export function openPace(ports: LookupPorts, spec: PaceSpec): PaceStep {
  const { cache, clock } = ports;
  const pacer = loadPace(cache, spec.scope, spec.start, spec.cap, clock.now(), spec.kept());
  let shared: SharedPace | undefined;
  if (spec.shared) {
    pacer.batchCap = spec.shared.batchCap;
    shared = new SharedPace(pacer, spec.start, cache, spec.scope, spec.shared.token, clock);
    shared.sync();
  }
  // The key's figure read once an execution (a user property), at the start or else at the end.
  const key = spec.key && once(spec.key);
  if (key) {
    // After the run's shared pace is read: Start's key check kept one that has sent no lookup yet.
    const before = pacer.state;
    pacer.state = startFromKey(before, () => key.read(), key.hash, clock.now(), pacer.cap);
    if (shared && pacer.state !== before) shared.publish();
  }
  const keep = (kept: Pacer) => {
    if (shared) shared.leave();
    else kept.save(cache, spec.scope);
    const value = kept.keptValue(spec.kept(), clock.now());
    if (value) spec.keep(value);
    if (key) {
      const figure = keyPaceValue(kept.state, key.read(), key.hash, clock.now());
      if (figure) key.write(figure);
    }
  };
  return { pacer, sizer: shared ?? pacer, shared, policy: { pacer, scope: spec.scope, keep } };
}

/** The key's figure read at most once (what this execution writes is what it read next). */
function once(key: NonNullable<PaceSpec['key']>): NonNullable<PaceSpec['key']> {
  let read: { value: string | undefined } | undefined;
  return {
    hash: key.hash,
    read: () => {
      read ??= { value: key.read() };
      return read.value;
    },
    write: (value) => {
      key.write(value);
      read = { value };
    },
  };
}
