/**
 * A result store in memory for the lookup's unit tests, keeping the store's promises to the session (ResultStore,
 * src/lookup/ports.ts): beginSend settles keys stored by now, leaves keys another batch holds to it, and records the
 * rest as one batch (`first` at the service, the others claimed); the batch's keep stores what the service may have
 * charged (lost answers among them). The real store over plain objects: test/store/resultStore.test.ts.
 */
import type { RecordWrites, ResultStore, SendAsk, SendCheck } from '../../src/lookup/ports';
import type { LookupResult } from '../../src/lookup/result';

/** A store's check that found nothing of its keys, with `partial`'s fields. */
export function sendCheck(partial: Partial<SendCheck> = {}): SendCheck {
  return {
    send: [],
    first: [],
    stored: new Map(),
    elsewhere: [],
    full: [],
    ...partial,
  };
}

export interface MemoryStore extends ResultStore {
  results: Map<string, LookupResult>;
  /** Keys a batch holds (at the service, or claimed for a later fetchAll). */
  beingSent: Set<string>;
  /** Every beginSend's ask, in order. */
  asks: SendAsk[];
}

/**
 * `note`: each store call as it happens ('beginSend', then the batch's 'keep a,b' with the keys whose results it
 * stored, 'toService c', 'drop d', 'endWithoutWriting'); a test logs them or throws there to make the call fail.
 */
export function memoryStore(note: (call: string) => void = () => {}): MemoryStore {
  const results = new Map<string, LookupResult>();
  const beingSent = new Set<string>();
  const asks: SendAsk[] = [];
  const storedOf = (keys: string[]) =>
    new Map(
      keys.flatMap((key) => (results.has(key) ? [[key, results.get(key) as LookupResult] as const] : [])),
    );
  const batchOf = (keys: string[]): RecordWrites => ({
    toService: (sent) => note(`toService ${sent.join(',')}`),
    keep(sent, stored, requeued) {
      note(`keep ${stored.map(([key]) => key).join(',')}`);
      for (const [key, result] of stored) results.set(key, result);
      for (const key of sent) if (!requeued.includes(key)) beingSent.delete(key);
    },
    drop(dropped) {
      note(`drop ${dropped.join(',')}`);
      for (const key of dropped) if (keys.includes(key)) beingSent.delete(key);
    },
    endWithoutWriting: () => note('endWithoutWriting'),
  });
  return {
    results,
    beingSent,
    asks,
    getMany: storedOf,
    readStored: (keys) => ({
      results: storedOf(keys),
      room: Number.POSITIVE_INFINITY,
      property: () => undefined,
    }),
    beginSend(ask) {
      note('beginSend');
      asks.push(ask);
      const check = sendCheck();
      for (const key of ask.urlKeys) {
        const result = results.get(key);
        if (result) check.stored.set(key, result);
        else if (beingSent.has(key)) check.elsewhere.push(key);
        else check.send.push(key);
      }
      if (check.send.length === 0) return check;
      const first = new Set(ask.first(check.send));
      check.first = check.send.filter((key) => first.has(key));
      for (const key of check.send) beingSent.add(key);
      check.record = batchOf(check.send);
      return check;
    },
  };
}
