/**
 * The small interfaces the lookup pipeline and the bulk run reach Apps Script through. src/adapters implements
 * them over the real services; tests may pass plain objects. Pure: types only.
 */

import type { LookupOutcome, LookupResult, ServiceError } from './result';

/** Time, and waiting (Utilities.sleep in Apps Script). */
export interface Clock {
  now(): number;
  sleep(ms: number): void;
  /** A time of day as a person reads it ("14:32" in the spreadsheet's time zone, or "14:32 UTC"). */
  timeText?(ms: number): string;
}

/** The spreadsheet's lock: one holder at a time across executions. */
export interface DocumentLock {
  /**
   * Runs `work` holding the lock, waiting for it at most the one wait policy allows (never past `deadline`).
   * Returns `{ value }`, or undefined when the lock stayed busy.
   */
  tryWith<T>(work: () => T, deadline?: number): { value: T } | undefined;
  /**
   * LockService itself refused (threw: its rate quota) in this execution, as opposed to the lock being busy: the
   * refusal will not clear in seconds, and every try spends more of the quota, so callers stop instead of retrying.
   */
  refused?(): boolean;
}

/** The document cache (claims and markers): short-lived, shared by every user of the spreadsheet. */
export interface DocumentCache {
  get(key: string): string | null;
  getAll(keys: string[]): Record<string, string>;
  putAll(values: Record<string, string>, expirationInSeconds: number): void;
  put(key: string, value: string, expirationInSeconds: number): void;
  remove(key: string): void;
  removeAll(keys: string[]): void;
}

/** A stored result and when it was stored. */
export interface CachedResult {
  result: LookupResult;
  /** Milliseconds since the epoch: for least-recently-stored eviction and for a re-check. */
  savedAt: number;
}

/**
 * One read of the result store: the stored results of the keys asked, and what the same read of the document
 * properties said. Values, not a view of the store: a later read never changes them.
 */
export interface StoreRead {
  results: Map<string, LookupResult>;
  /**
   * How many more results this execution may pay for as of this read (a formula's answers wait in document
   * properties, within PENDING_RESULTS_BUDGET_BYTES): unbounded when the execution may write the spreadsheet, or when
   * the results sheet held every key asked (then the read read no document property, and nothing is left to pay for).
   */
  room: number;
  /** A document property as this read found it: undefined when it is unset or the read read none (see `room`). */
  property(name: string): string | undefined;
}

/** Whether a stored result, saved at `savedAt`, stands (else its profile is bought again: a re-check, a retry). */
export type KeepsStored = (result: LookupResult, savedAt: number) => boolean;

/** Results by normalised URL: the credits already spent. Shared by =FINDEMAIL and the bulk run. */
export interface ResultStore {
  /** The stored results of these keys. */
  getMany(urlKeys: string[]): Map<string, LookupResult>;
  /**
   * getMany, with what its read of the document properties said (the room, the properties), at no more calls: the
   * properties are read only for keys the results sheet lacks.
   */
  readStored(urlKeys: string[]): StoreRead;
  /**
   * Call holding the document lock, with the keys' claims: one read of the store. Of `urlKeys`, the ones stored by
   * now, the ones another execution's batch holds, the ones the store cannot keep now, the ones whose answers were
   * lost too often; the rest recorded as this execution's batch (durably: a claim in the cache may vanish).
   */
  beginSend(ask: SendAsk): SendCheck;
}

export interface SendAsk {
  urlKeys: string[];
  /** The sending record ends then: the sender's execution cannot outlive it (its claims end then too). */
  untilMs: number;
  /** Stored results older than this do not count (a re-check run looks them up again). */
  keepsStored?: KeepsStored;
  /** Of the sendable keys, the first fetchAll's: at the service at once, the rest claimed. */
  first(sendable: string[]): string[];
  /** A bulk slice's window: its token, in the sending record. */
  window?: string;
  /** The document properties as the caller read them in this hold of the lock (else the store reads them). */
  all?: Readonly<Record<string, string>>;
}

export interface SendCheck {
  /** Recorded as this execution's batch: `first` at the service, the others claimed for later fetchAlls. */
  send: string[];
  first: string[];
  stored: Map<string, LookupResult>;
  elsewhere: string[];
  /** Keys whose results would not fit the formulas' answers waiting to be folded (`room`): not sent now. */
  full: string[];
  /** The record of the keys sent (undefined when nothing is sent). */
  record?: RecordWrites;
}

/**
 * A batch this execution recorded (ResultStore.beginSend): its sender's own writes, without the document lock (no
 * other execution writes its records), so a paid answer is kept even while LockService refuses.
 */
export interface RecordWrites {
  /** Before a later fetchAll: these claimed keys go out now. */
  toService(keys: readonly string[]): void;
  /**
   * After a fetchAll of `sent`: what the service may have charged (results, unusable and lost answers) kept;
   * `requeued` stay claimed for a retry.
   */
  keep(sent: readonly string[], results: Array<[string, LookupResult]>, requeued: readonly string[]): void;
  /** Keys never sent leave the batch. */
  drop(keys: readonly string[]): void;
  /** A bulk slice ends without writing its window: folding the records frees it for another slice at once. */
  endWithoutWriting(): void;
}

/** Where the requests of one batch go, and with which key. */
export interface SendPlan {
  apiKey: string;
  endpoint: string;
}

/** What one batch brought back. */
export interface SentBatch {
  /** One per request; `undefined` for a request never sent (the caller may send it later). */
  outcomes: Array<LookupOutcome | undefined>;
  sent: number;
  /**
   * The batch was sent and every answer of it lost: fetchAll threw for a transport failure of one of its
   * requests. The service may have charged each of them; every outcome is then that failure.
   */
  lost: boolean;
}

/** One batch of lookups (one fetchAll). */
export interface Transport {
  sendBatch(urls: string[], plan: SendPlan): SentBatch;
  /** One free key check (a request without `network_url`) before the first paid batch. */
  checkKey?(plan: SendPlan): SentKeyCheck;
}

/** What the key check brought back. */
export interface SentKeyCheck {
  /** Undefined when the key check passed (400), else what the answer means (401, 404, 429...). */
  error?: ServiceError;
  /** 1, or 0 when the daily quota refused it. */
  sent: number;
  /** fetchAll threw for a transport failure of one of its requests (or the daily quota: then `sent` is 0). */
  lost: boolean;
}

/** How many requests go into the next batch (src/lookup/pace.ts: an adaptive controller observing each batch). */
export interface BatchSizer {
  next(): number;
  observe(sample: BatchSample): void;
  /** Epoch ms before which no batch may start (a Retry-After), kept for the next execution too. */
  notBefore?(): number;
  hold?(untilMs: number): void;
}

export interface BatchSample {
  size: number;
  durationMs: number;
  /** Requests that failed in a retryable way (500, 429, transport, time-out). */
  failures: number;
  /** The batch was lost to a transport failure (fetchAll threw). */
  lostBatch?: boolean;
  /** Answers 429 or 5xx: the service is overloaded or limiting. */
  throttled?: number;
  /** Epoch ms the batch ended (when a lost batch is remembered from). */
  endedAt?: number;
}

/** When a batch may start (the execution's time budget). */
export interface SendBudget {
  /** A batch may start at `now` after waiting `waitMs`; `first`: none was sent yet by this call. */
  mayStart(now: number, waitMs: number, first: boolean): boolean;
  /** Epoch ms: the store's check before a batch (under the document lock) waits no longer than this. */
  lockDeadline(): number;
  observe(sample: BatchSample): void;
}

/** Everything the lookup pipeline reaches Apps Script through. */
export interface LookupPorts {
  store: ResultStore;
  /** Null when the execution has no document cache: nothing is claimed then. */
  cache: DocumentCache | null;
  lock: DocumentLock;
  clock: Clock;
  transport: Transport;
}
