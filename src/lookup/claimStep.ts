/**
 * The session's claim step, in one hold of the document lock: the claims and the gates' markers read in one cache
 * call, the keys found in the result store, the gates' admission (a halt, the account check, the formulas' daily
 * limit), the claims put, and the first batch recorded as being sent: one lock hold. A formula keeps its results
 * without the lock, so a new profile in a single cell costs this hold alone (two LockService calls on the lock).
 * Reached through the ports only (pure of Apps Script).
 */

import { MAX_CLAIMS_AT_ONCE } from '../core/limits';
import { type ClaimScope, claimKey, readClaims } from './claims';
import type { Gate } from './gate';
import type { DocumentCache, LookupPorts, SendCheck } from './ports';
import type { ServiceError } from './result';

export interface ClaimAsk {
  /** Normalised URLs without a known result. */
  keys: string[];
  /** The claim's value (FORMULA_CLAIM, BULK_CLAIM) and how long it lives. */
  value: string;
  /** Where the claims are put: the lookup's scope, which releases them whatever ends it. */
  claims: ClaimScope;
  seconds: number;
  /** The lock is not waited for past this. */
  deadline?: number;
  gates: readonly Gate[];
  /** Under the lock, after the claims were read: the result store's look at these unclaimed keys. */
  inStore(unclaimed: string[]): InStore;
  /** Under the lock, once the claims are put: the store's check of the first batch of `mine` (beginSend). */
  firstBatch(mine: string[], alone: boolean): SendCheck | undefined;
}

/** The claim step's look into the result store, under the lock. */
export interface InStore {
  /** Of the unclaimed keys asked, the ones now in the result store. */
  stored: { has(key: string): boolean };
  /** How many more results the store can keep now, as of the same read (StoreRead.room); undefined: unbounded. */
  room?: number;
}

export interface Claimed {
  /** Claimed by this caller: it sends them. */
  mine: string[];
  /** Claimed by someone else, by the claim's value. */
  heldBy: Map<string, string>;
  /** Free, but not admitted now (or past MAX_CLAIMS_AT_ONCE: claimed on a later call). */
  blocked: string[];
  /** Free, but more than the result store can keep now (the formulas' results waiting at their budget): not claimed. */
  unsaved: string[];
  /** Free, but refused by a gate (the formulas' daily limit), with what their cells say: not claimed. */
  refused: Map<string, ServiceError>;
  /** What a gate said that ends the lookup before anything is claimed (the formulas' halt marker). */
  stop?: ServiceError;
  /** The store's check of the first batch, made in the same hold of the lock. */
  first?: SendCheck;
}

/**
 * Claims the keys neither in the store nor claimed by anyone, as the gates admit. Results are stored before their
 * claim is released, so a key seen unclaimed here is either in the store read after it or really unknown: no two
 * executions pay for one URL. Undefined when the lock stayed busy (or LockService refused it). Without a document
 * cache nothing is claimed (the store's sending records still keep two executions apart).
 */
export function claimUnknown(ports: LookupPorts, ask: ClaimAsk): Claimed | undefined {
  return ports.lock.tryWith(() => claimHoldingLock(ports.cache, ask), ask.deadline)?.value;
}

/**
 * Of the free keys: the ones claimed now, the ones left for a later call, the ones the store cannot keep now
 * (`room`, from the store's look that found them free). Keys past what one call claims are left for a later call
 * whatever the room: it reads the room again then (a result takes less than the room counts it before it is known).
 */
function splitByRoom(free: string[], room = free.length): Pick<Claimed, 'mine' | 'blocked' | 'unsaved'> {
  const claimable = Math.min(free.length, MAX_CLAIMS_AT_ONCE);
  const now = Math.max(0, Math.min(claimable, room));
  if (now === claimable) return { mine: free.slice(0, now), blocked: free.slice(now), unsaved: [] };
  return { mine: free.slice(0, now), blocked: [], unsaved: free.slice(now) };
}

export function claimHoldingLock(cache: DocumentCache | null, ask: ClaimAsk): Claimed {
  const extra = ask.gates.flatMap((gate) => gate.markers ?? []);
  const markers = cache ? readClaims(cache, ask.keys, extra) : {};
  const heldBy = new Map<string, string>();
  const unclaimed: string[] = [];
  for (const key of ask.keys) {
    const holder = markers[claimKey(key)];
    if (holder) heldBy.set(key, holder);
    else unclaimed.push(key);
  }
  const known = ask.inStore(unclaimed);
  const free = unclaimed.filter((key) => !known.stored.has(key));
  const claimed: Claimed = { ...splitByRoom(free, known.room), heldBy, refused: new Map() };
  const begun: Array<() => void> = [];
  let alone = false;
  for (const gate of ask.gates) {
    if (claimed.mine.length === 0) break;
    const admission = gate.admit?.(markers, claimed.mine.length);
    if (!admission) continue;
    if ('stop' in admission) return { ...claimed, mine: [], blocked: [], stop: admission.stop };
    if ('wait' in admission) {
      claimed.blocked = [...claimed.mine, ...claimed.blocked];
      claimed.mine = [];
      break;
    }
    if (admission.take < claimed.mine.length) {
      // Refused past `take`: the keys left for a later call would be refused too.
      const past = [...claimed.mine.slice(admission.take), ...claimed.blocked];
      for (const key of past) claimed.refused.set(key, admission.refusal as ServiceError);
      claimed.blocked = [];
    }
    claimed.mine = claimed.mine.slice(0, admission.take);
    alone ||= admission.alone === true;
    if (admission.claimed) begun.push(admission.claimed);
  }
  if (claimed.mine.length === 0) return claimed;
  ask.claims.put(claimed.mine, ask.value, ask.seconds);
  for (const begin of begun) begin();
  claimed.first = ask.firstBatch(claimed.mine, alone);
  return claimed;
}
