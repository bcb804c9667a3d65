/**
 * The pipeline's first step: claim, under the document lock, the keys neither stored nor claimed by another
 * execution, never more at once than the cache keeps. Reached through the ports only (pure of Apps Script).
 */

import { MAX_CLAIMS_AT_ONCE } from '../core/limits';
import { ACCOUNT_CHECK_MARKERS, admission, beginAccountCheck } from './accountCheck';
import { claimKey, type Halt, putClaims, readClaims } from './claims';
import type { DocumentCache, LookupPorts } from './ports';

export interface ClaimRequest {
  /** Normalised URLs without a known result. */
  keys: string[];
  /** The claim's value (FORMULA_CLAIM, BULK_CLAIM) and how long it lives. */
  value: string;
  seconds: number;
  /** The lock is not waited for past this. */
  deadline?: number;
  /**
   * =FINDEMAIL's account check (./accountCheck.ts), decided under the lock from the markers read with the claims:
   * for this API key, a halt claims nothing; while the account is not known to work, one caller at a time claims
   * its free keys to check the account with a single request first, the others claim nothing now.
   */
  accountCheck?: { apiKey: string };
  /** Under the lock, after the claims were read: of these unclaimed keys, the ones now in the result store. */
  inStore(unclaimed: string[]): Set<string>;
}

export interface Claimed {
  /** Claimed by this caller: it sends them. */
  mine: string[];
  /** Claimed by someone else, by the claim's value. */
  heldBy: Map<string, string>;
  /** Free, but not admitted now (or past MAX_CLAIMS_AT_ONCE: claimed on a later call). */
  blocked: string[];
  /** Free, but more than the result store can keep now (a formula's buffer is full): not claimed. */
  unsaved: string[];
  /** This caller checks the account: it sends a single request first, then ends the check (./accountCheck.ts). */
  checksAccount: boolean;
  /** The formulas are halted for this key (a 401 or 402 lately): nothing was claimed. */
  halt?: Halt;
}

/**
 * Claims the keys neither in the store nor claimed by anyone. Results are stored before their claim is released,
 * so a key seen unclaimed here is either in the store read after it or really unknown: no two executions pay
 * for one URL. Undefined when the lock stayed busy. Without a document cache nothing is claimed.
 */
export function claimUnknown(ports: LookupPorts, request: ClaimRequest): Claimed | undefined {
  const { cache } = ports;
  if (!cache) {
    const known = request.inStore(request.keys);
    const free = request.keys.filter((key) => !known.has(key));
    return { ...withinRoom(ports, free), heldBy: new Map(), checksAccount: false };
  }
  return ports.lock.tryWith(() => claimHoldingLock(ports, cache, request), request.deadline)?.value;
}

/** Of the free keys: the ones claimed now, the ones left for a later call, the ones the store cannot keep now. */
function withinRoom(ports: LookupPorts, free: string[]): Pick<Claimed, 'mine' | 'blocked' | 'unsaved'> {
  const fits = Math.max(0, Math.min(free.length, ports.store.room?.() ?? free.length));
  const now = Math.min(fits, MAX_CLAIMS_AT_ONCE);
  return { mine: free.slice(0, now), blocked: free.slice(now, fits), unsaved: free.slice(fits) };
}

function claimHoldingLock(ports: LookupPorts, cache: DocumentCache, request: ClaimRequest): Claimed {
  const { accountCheck } = request;
  const markers = readClaims(cache, request.keys, accountCheck ? ACCOUNT_CHECK_MARKERS : []);
  const claimOf = (key: string) => markers[claimKey(key)];
  const heldBy = new Map<string, string>();
  const unclaimed: string[] = [];
  for (const key of request.keys) {
    const holder = claimOf(key);
    if (holder) heldBy.set(key, holder);
    else unclaimed.push(key);
  }
  const known = request.inStore(unclaimed);
  const free = unclaimed.filter((key) => !known.has(key));
  const room = withinRoom(ports, free);
  const admitted = accountCheck ? admission(markers, accountCheck.apiKey, room.mine.length) : 'claim';
  if (typeof admitted === 'object')
    return { mine: [], heldBy, blocked: [], unsaved: [], checksAccount: false, halt: admitted.halt };
  if (admitted === 'wait')
    return {
      mine: [],
      heldBy,
      blocked: [...room.mine, ...room.blocked],
      unsaved: room.unsaved,
      checksAccount: false,
    };
  if (admitted === 'check account') beginAccountCheck(cache, request.seconds);
  putClaims(cache, room.mine, request.value, request.seconds);
  return { ...room, heldBy, checksAccount: admitted === 'check account' };
}
