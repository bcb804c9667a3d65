/**
 * How every lookup is bought: claimed under the lock (the record is the claim), then sent in batches without it, each
 * batch's answers kept in the write that takes them out of the record; a key at the service when the execution is
 * killed is folded later as a lost answer, maybe charged.
 */
import {
  DEFAULT_RETRY,
  PENDING_RESULT_RESERVE_BYTES,
  PENDING_RESULTS_BUDGET_BYTES,
  RATE_LIMITED_ATTEMPTS,
} from '../core/limits';
import type { Platform } from '../core/ports';
import { haltsRun, interpretAnswer, interpretFetchException, mayRetry } from '../lookup/contract';
import { type BatchSeen, fitting, observe, type Pace, serviceFailing } from '../lookup/pace';
import { type LookupOutcome, type LookupResult, lostAnswer, type ServiceError } from '../lookup/result';
import type { ChargeContext } from './credits';
import { answered, dropped, type OwnRecord, openRecord, readRecords, toService } from './records';
import type { Store } from './store';
import { hashOf } from './table';

export interface Ask {
  /** Normalised URL -> the URL as written. */
  wanted: ReadonlyMap<string, string>;
  payer: ChargeContext;
  /** The sender's execution has ended by then. */
  until: number;
  /** Else the profile is bought again (a re-check, a retry). */
  keeps?: (result: LookupResult, savedAt: number) => boolean;
  /** The formulas' answers wait in document properties until a writer folds them: their budget bounds them. */
  bounded?: boolean;
  /** The formulas' daily limit: the others are `over`. */
  limit?: number;
}

export interface Claim {
  stored: Map<string, LookupResult>;
  elsewhere: Map<string, 'formulas' | 'run'>;
  over: string[];
  /** Past the formulas' budget of answers waiting to be folded: not sent now. */
  unsaved: string[];
  mine: string[];
  /** The caller writes them (with its own) in one call, holding the lock. */
  values: Record<string, string>;
  own?: OwnRecord;
  wanted: ReadonlyMap<string, string>;
}

/** Holding the lock; `all`: the document properties read in this hold. */
export function claim(
  store: Store,
  all: Readonly<Record<string, string>>,
  ask: Ask,
  now: () => number,
): Claim {
  const records = readRecords(all, now());
  const keys = [...ask.wanted.keys()];
  const stored = store.lookIn(keys, all);
  let room = ask.bounded
    ? Math.floor((PENDING_RESULTS_BUDGET_BYTES - records.pendingBytes) / PENDING_RESULT_RESERVE_BYTES)
    : Number.POSITIVE_INFINITY;
  const made: Claim = {
    stored: new Map(),
    elsewhere: new Map(),
    over: [],
    unsaved: [],
    mine: [],
    values: {},
    wanted: ask.wanted,
  };
  let left = ask.limit ?? Number.POSITIVE_INFINITY;
  for (const key of keys) {
    const cached = stored.get(key);
    const holder = records.held.get(hashOf(key));
    if (cached && (ask.keeps?.(cached.result, cached.savedAt) ?? true)) made.stored.set(key, cached.result);
    else if (holder) made.elsewhere.set(key, holder);
    else if (left <= 0) made.over.push(key);
    else if (room-- > 0) {
      made.mine.push(key);
      left--;
    } else made.unsaved.push(key);
  }
  if (made.mine.length === 0) return made;
  return { ...made, ...openRecord(made.mine, ask.until, ask.payer, now) };
}

export interface Policy {
  apiKey: string;
  endpoint: string;
  pace: Pace;
  /** Requests a batch holds at most. */
  share: number;
  cap: number;
  /** Requests of the run's other slices at the service as this one's batches go. */
  alongside?: number;
  deadline: number;
  /** The first batch goes however little time is left. */
  firstGoes?: boolean;
  /** A run's slice: a 429'd key goes back to the run at once; a lone 5xx is tried once more, at once. */
  run?: boolean;
  /** Before each later batch: a Pause, or a halt another execution wrote. */
  beforeBatch?(): ServiceError | undefined;
}

export interface Report {
  outcomes: Map<string, LookupOutcome>;
  unsent: string[];
  halt?: ServiceError;
  sent: number;
  pace: Pace;
  /** A run's slice applies them to its run's figure. */
  seen: BatchSeen[];
}

/** `attempt`: 2, 3… */
export function retryDelayMs(attempt: number): number {
  return Math.min(DEFAULT_RETRY.maxDelayMs, DEFAULT_RETRY.baseDelayMs * 2 ** (attempt - 2));
}

/** Without the lock; each batch's answers kept before the next goes. */
export function sendClaimed(
  platform: Pick<Platform, 'clock' | 'transport' | 'documentProperties'>,
  made: Claim,
  policy: Policy,
): Report {
  const { clock, transport } = platform;
  const write = (values: Record<string, string>) => {
    if (Object.keys(values).length > 0) platform.documentProperties().setProperties(values);
  };
  const report: Report = { outcomes: new Map(), unsent: [], sent: 0, pace: policy.pace, seen: [] };
  let queue = [...made.mine];
  const tries = new Map<string, number>();
  const notBefore = new Map<string, number>();
  /** It stands when no time is left for the next try. */
  const failedLast = new Map<string, LookupOutcome>();
  const givenBack: string[] = [];
  const { alongside = 0 } = policy;
  let first = true;
  for (let round = 0; queue.length > 0 && round < 10_000; round++) {
    const now = clock.now();
    const waitUntil = Math.max(
      report.pace.notBefore ?? 0,
      Math.min(...queue.map((key) => notBefore.get(key) ?? 0)),
    );
    if (waitUntil > now) {
      if (waitUntil >= policy.deadline) break;
      clock.sleep(waitUntil - now);
      continue;
    }
    const ready = queue.filter((key) => (notBefore.get(key) ?? 0) <= now);
    const fits = fitting(report.pace, policy.deadline - now);
    let size = Math.min(ready.length, policy.share, report.pace.size, fits);
    if (size < 1 && first && policy.firstGoes) size = Math.min(ready.length, Math.max(1, policy.share));
    if (size < 1) break;
    if (!first && policy.beforeBatch?.()) break;
    first = false;
    const batch = ready.slice(0, size);
    if (made.own) write(toService(made.own, batch));
    const answer = transport.fetchAll(
      batch.map((key) => made.wanted.get(key) ?? key),
      { apiKey: policy.apiKey, endpoint: policy.endpoint },
    );
    const ms = clock.now() - now;
    const thrown = 'thrown' in answer ? interpretFetchException(answer.thrown) : undefined;
    const lost = thrown !== undefined && 'sent' in answer && answer.sent > 0;
    report.sent += 'answers' in answer ? batch.length : answer.sent;
    const charged: Array<[string, LookupResult]> = [];
    const requeued: string[] = [];
    let refused = 0;
    let retryAfterUntil = 0;
    const outcomes = batch.map((_, index): LookupOutcome => {
      const outcome =
        thrown ??
        interpretAnswer(('answers' in answer ? answer.answers : [])[index], policy.apiKey, answer.at);
      return lost ? lostAnswer(outcome.kind === 'error' ? outcome.message : 'a connection failed') : outcome;
    });
    const failed = outcomes.filter((o) => o.kind === 'error' && (o.status ?? 0) >= 500).length;
    const lone = policy.run && !serviceFailing(failed, batch.length);
    outcomes.forEach((outcome, index) => {
      const key = batch[index];
      const attempt = (tries.get(key) ?? 0) + 1;
      tries.set(key, attempt);
      if (outcome.kind !== 'error') {
        charged.push([key, outcome]);
        report.outcomes.set(key, outcome);
        return;
      }
      if (outcome.error === 'rate_limited') refused++;
      const after = outcome.retryAfterMs ?? 0;
      if (after > 0) retryAfterUntil = Math.max(retryAfterUntil, answer.at + after);
      if (outcome.error === 'rate_limited' && policy.run) {
        givenBack.push(key);
        return;
      }
      const most =
        outcome.error === 'rate_limited' ? RATE_LIMITED_ATTEMPTS : lone ? 2 : DEFAULT_RETRY.maxAttempts;
      if (mayRetry(outcome) && attempt < most) {
        requeued.push(key);
        if (outcome.error !== 'rate_limited') failedLast.set(key, outcome);
        notBefore.set(key, answer.at + (lone ? after : Math.max(after, retryDelayMs(attempt + 1))));
        return;
      }
      report.outcomes.set(key, outcome);
      if (haltsRun(outcome)) report.halt ??= outcome;
    });
    if (made.own) write(answered(made.own, batch, charged, requeued, () => clock.now()));
    queue = queue.filter((key) => !report.outcomes.has(key) && !givenBack.includes(key));
    const seen = { sent: batch.length, alongside, ms, refused, failed, lost, retryAfterUntil };
    report.seen.push(seen);
    report.pace = observe(report.pace, seen, policy.share, policy.cap);
    if (report.halt) break;
  }
  queue.push(...givenBack);
  if (made.own && queue.length > 0) write(dropped(made.own, queue));
  // A key left after a 429 has no outcome: a later run sends it.
  for (const key of queue) {
    const last = failedLast.get(key);
    if (last) report.outcomes.set(key, last);
  }
  report.unsent = queue.filter((key) => !report.outcomes.has(key));
  return report;
}
