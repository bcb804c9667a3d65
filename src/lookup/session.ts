/**
 * The one way to look profiles up, for =FINDEMAIL and the bulk run alike: `openLookup(ports, policy)`, then
 * `session.lookUp(keys)` as often as the caller needs, then `session.close()`.
 *
 * A lookup: the gates before the claim (the formulas' halt marker, the free key check), then one hold of the
 * document lock (./claimStep.ts: claims, gates' admission, the claimed keys recorded as being sent), then batches
 * sent through one retry scheduler (./pipeline.ts), each stored before its claims are released. Every claim a lookup
 * took is released before it returns, whatever ended it (all settled, a halt, a gate, the budget, a busy lock, a
 * thrown error); `close` ends the gates (the account check, the formulas' daily limit gives back what was not
 * charged) and keeps the pace. The policy holds what differs between a formula and a bulk slice. What the platform's
 * kill leaves (claims, sending records) expires: the records are settled as lost answers by the next execution that
 * reads the store (src/store/resultStore.ts).
 */
import { type Claimed, claimHoldingLock, claimUnknown, type InStore } from './claimStep';
import { type ClaimScope, claimScope } from './claims';

export type { Claimed } from './claimStep';

import type { Gate } from './gate';
import type { Pacer } from './pace';
import {
  beginSend,
  emptyReport,
  endSending,
  type LookupReport,
  type SendRequest,
  sendBatches,
  settleCheck,
  startSending,
} from './pipeline';

export { emptyReport, type LookupReport } from './pipeline';

import type { BatchSizer, KeepsStored, LookupPorts, SendBudget } from './ports';
import type { RetryPolicy } from './retry';

export interface LookupPolicy {
  apiKey: string;
  endpoint: string;
  /** The claim's value (FORMULA_CLAIM, BULK_CLAIM) and how long claims and sending records outlive the execution. */
  claim: { value: string; seconds: number };
  budget: SendBudget;
  retry: RetryPolicy;
  sizer: BatchSizer;
  /** The adaptive pace behind `sizer`, kept at `close` for the next execution of `scope`. */
  pace?: { pacer: Pacer; scope: string; keep(pacer: Pacer): void };
  /** Stored results older than this do not count (a re-check run looks them up again). */
  keepsStored?: KeepsStored;
  /** Under the lock: of these unclaimed keys, the ones in the result store (the caller keeps them), and its room. */
  inStore(unclaimed: string[]): InStore;
  /** In order: each may stop, narrow or follow the sending (./gate.ts). */
  gates: readonly Gate[];
}

export interface LookupSession {
  /** Looks these keys up (normalised URL -> the URL as the user wrote it, what the service gets). */
  lookUp(wanted: ReadonlyMap<string, string>): LookupReport;
  /** Ends the gates and keeps the pace; once, however the session ended. */
  close(): void;
}

export function openLookup(ports: LookupPorts, policy: LookupPolicy): LookupSession {
  // Counted as each batch is stored: a lookup that throws later still counts what it was charged.
  const totals = { charged: 0 };
  let closed = false;
  return {
    lookUp(wanted) {
      if (closed) throw new Error('The lookup session is closed.');
      return lookUpOnce(ports, policy, wanted, totals);
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        for (const gate of policy.gates) gate.close?.({ charged: totals.charged });
      } finally {
        policy.pace?.keep(policy.pace.pacer);
      }
    },
  };
}

/**
 * One lookup in one scope: whatever ends it (a gate, the budget, a busy lock, an error thrown by any port, at any
 * step from the claims' put on), every claim it put is released in its `finally`.
 */
function lookUpOnce(
  ports: LookupPorts,
  policy: LookupPolicy,
  wanted: ReadonlyMap<string, string>,
  totals: { charged: number },
): LookupReport {
  const report = emptyReport();
  const keys = [...wanted.keys()];
  if (keys.length === 0) return report;
  for (const gate of policy.gates) {
    const stopped = gate.beforeClaim?.(keys.length);
    if (stopped) return { ...report, ...stopped };
  }
  const request: SendRequest = {
    claimed: new Map(),
    apiKey: policy.apiKey,
    endpoint: policy.endpoint,
    retry: policy.retry,
    batchSize: policy.sizer,
    budget: policy.budget,
    holdSeconds: policy.claim.seconds,
    keepsStored: policy.keepsStored,
    beforeBatch: () => {
      for (const gate of policy.gates) {
        const stop = gate.beforeBatch?.();
        if (stop !== undefined) return stop;
      }
      return undefined;
    },
    afterBatch: (batch) => {
      totals.charged += batch.stored.length;
      for (const gate of policy.gates) gate.afterBatch?.(batch);
    },
  };
  const claims = claimScope(ports.cache);
  try {
    return claimAndSend(ports, policy, wanted, request, claims, report);
  } finally {
    claims.releaseAll();
  }
}

function claimAndSend(
  ports: LookupPorts,
  policy: LookupPolicy,
  wanted: ReadonlyMap<string, string>,
  request: SendRequest,
  claims: ClaimScope,
  report: LookupReport,
): LookupReport {
  const keys = [...wanted.keys()];
  const claimed = claimUnknown(ports, {
    claims,
    keys,
    value: policy.claim.value,
    seconds: policy.claim.seconds,
    deadline: policy.budget.lockDeadline(),
    gates: policy.gates,
    // Results found here are the caller's own (its inStore keeps them).
    inStore: policy.inStore,
    firstBatch: (mine, alone) => {
      const now = ports.clock.now();
      const wait = Math.max(0, (policy.sizer.notBefore?.() ?? 0) - now);
      if (!policy.budget.mayStart(now, wait, true)) return undefined;
      return beginSend(ports, request, mine, alone ? 1 : policy.sizer.next());
    },
  });
  if (!claimed) {
    const refused = ports.lock.refused?.() ?? false;
    return { ...report, blocked: keys, lockBusy: true, lockRefused: refused };
  }
  return sendClaimed(ports, wanted, request, claims, claimed, report);
}

/**
 * The claim step of a bulk slice, in the slice's own hold of the lock (with its window's lease): the free keys
 * claimed and recorded as one batch, every key at the service at once (but a key lost before, which goes alone
 * first), claims and records until `untilMs`. `all`: the document properties as read in this hold.
 */
export function claimInHold(
  ports: LookupPorts,
  ask: {
    keys: string[];
    value: string;
    claims: ClaimScope;
    untilMs: number;
    keepsStored?: KeepsStored;
    window: string;
    all: Readonly<Record<string, string>>;
  },
): Claimed {
  const seconds = Math.max(1, Math.ceil((ask.untilMs - ports.clock.now()) / 1000));
  return claimHoldingLock(ports.cache, {
    keys: ask.keys,
    value: ask.value,
    claims: ask.claims,
    seconds,
    gates: [],
    // The store's check comes with the sending record (beginSend): one read for both.
    inStore: () => ({ stored: new Set<string>() }),
    firstBatch: (mine) =>
      beginSend(
        ports,
        { holdSeconds: seconds, keepsStored: ask.keepsStored, window: ask.window },
        mine,
        mine.length,
        ask.all,
      ),
  });
}

/**
 * After the claim step (its hold of the lock: the claims, the gates' admission, the sending record): the keys
 * sent, its answers kept, the report. The claims of keys left unsent are released; the caller's scope releases
 * the rest whatever ends it.
 */
export function sendClaimed(
  ports: LookupPorts,
  wanted: ReadonlyMap<string, string>,
  request: SendRequest,
  claims: ClaimScope,
  claimed: Claimed,
  report: LookupReport,
): LookupReport {
  for (const [key, holder] of claimed.heldBy) report.heldBy.set(key, holder);
  report.blocked.push(...claimed.blocked);
  report.unsaved.push(...claimed.unsaved);
  for (const [key, refusal] of claimed.refused) report.outcomes.set(key, refusal);
  if (claimed.stop) report.stop = claimed.stop;
  if (claimed.stop || claimed.mine.length === 0) return report;
  request.claimed = new Map(claimed.mine.map((key) => [key, wanted.get(key) ?? key]));
  const sending = startSending(request, claims, report);
  if (claimed.first) sendBatches(ports, request, sending, settleCheck(sending, claimed.first));
  return endSending(sending);
}
