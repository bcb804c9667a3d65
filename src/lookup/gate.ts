/**
 * A gate of the lookup session (./session.ts): what may stop, narrow or follow the sending, with its beginning and
 * its end in the session's one place. The session asks each gate in its policy's order. Types only.
 */

import type { BatchReport } from './pipeline';
import type { ServiceError } from './result';

/** Under the lock, what a gate admits of `free` keys about to be claimed. */
export type Admission =
  /**
   * At most `take` of them (in order); the rest say `refusal`, and so do the free keys past the claims one call may
   * take (the gate admits no more of them either). `alone`: the first batch holds one key. `claimed`: what the gate
   * begins, once every gate admitted some key and their claims are put (nothing begins for a lookup that sends
   * nothing).
   */
  | { take: number; refusal?: ServiceError; alone?: boolean; claimed?: () => void }
  /** None now: another execution must finish first (the account check); they are blocked, not refused. */
  | { wait: true }
  /** None: the lookup ends with this error (a halt another execution wrote). */
  | { stop: ServiceError };

/** How a lookup ended before it claimed anything: a halt, or a gate's word for every key. */
export interface GateStop {
  /** An answer of the service that halts the run (the key check's 401, 404, a redirect). */
  halt?: ServiceError;
  /** A gate's word (a halt another execution wrote, LockService refusing lately). */
  stop?: ServiceError;
}

export interface Gate {
  /** For the reader: which gate this is. */
  readonly name: string;
  /** Before the claim step, without the lock, with the number of keys wanted: a stop ends the lookup. */
  beforeClaim?(wanted: number): GateStop | undefined;
  /** Document cache keys read with the claims, in the same call. */
  readonly markers?: readonly string[];
  /** Under the lock, before claims are put: what it admits of `free` keys, given the markers read. */
  admit?(markers: Record<string, string>, free: number): Admission | undefined;
  /** Before each batch but a lookup's first (the claim step read the markers for it): an error ends the sending. */
  beforeBatch?(): ServiceError | undefined;
  /** After each batch went out. */
  afterBatch?(batch: BatchReport): void;
  /** Once, when the session closes, whatever ended it: `charged`, the lookups the service charged. */
  close?(totals: { charged: number }): void;
}
