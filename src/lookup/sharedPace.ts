/**
 * The pace of a bulk run shared by its slices at once, in the document cache: the run's pace (./pace.ts, as
 * loadPace reads it) and, beside it, each slice's requests in flight now. A slice sends at most its share of the
 * run's size and never more than the size less what the other slices have in flight, so more slices split the pace
 * and never add requests; each batch is observed on the latest kept state and kept at once, so the slices grow and
 * shrink together. The cache is best-effort ("be prepared to get back null from all reads",
 * apps-script/reference/cache/cache): a lost entry reads as no other slice, the slice's own pace then counts.
 */
import { PACE_PREFIX } from '../core/propertyNames';
import { isRecord, parseStored } from '../core/storedJson';
import { PACE_SECONDS, type Pacer, type PaceState, parsePaceState, recallPace } from './pace';
import type { BatchSample, BatchSizer, Clock, DocumentCache } from './ports';

/** A slice's entry: requests it has in flight now, and until when the entry counts (a slice killed leaves it). */
type Flight = [sending: number, until: number];

/** A slice sending counts this long (a fetch's answer comes within about 60 s, or the fetch fails). */
export const SENDING_MS = 90_000;
/** A slice between batches (planning, writing, waiting for room) counts this long after it last said so. */
export const IDLE_MS = 30_000;
/** How often a slice waiting for room (the other slices' requests in flight) looks again. */
export const ROOM_LOOK_MS = 250;

/** The cache key of the slices' entries beside the pace kept for `scope`. */
export function flightsKey(scope: string): string {
  return `${PACE_PREFIX}${scope}.slices`;
}

function parseFlights(raw: string | null | undefined, now: number): Record<string, Flight> {
  const all = parseStored(raw);
  const live: Record<string, Flight> = {};
  if (!isRecord(all)) return live;
  for (const [token, flight] of Object.entries(all))
    if (isFlight(flight) && flight[1] > now) live[token] = flight;
  return live;
}

function isFlight(value: unknown): value is Flight {
  return (
    Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number'
  );
}

/** The slices of the run now: live entries in the cache, and the run's kept pace (undefined: none kept). */
export function readSlices(
  cache: DocumentCache | null,
  scope: string,
  now: number,
): { slices: number; sending: number; state?: PaceState } {
  if (!cache) return { slices: 0, sending: 0 };
  const read = cache.getAll([PACE_PREFIX + scope, flightsKey(scope)]);
  const flights = Object.values(parseFlights(read[flightsKey(scope)], now));
  return {
    slices: flights.length,
    sending: flights.reduce((sum, [sending]) => sum + sending, 0),
    state: parsePaceState(read[PACE_PREFIX + scope]),
  };
}

/** One slice's part in the run's shared pace: the pipeline's BatchSizer, its Pacer kept in step with the others'. */
export class SharedPace implements BatchSizer {
  private flights: Record<string, Flight> = {};

  constructor(
    readonly pacer: Pacer,
    /** Requests in a batch when nothing is known (the pace's `start`): where forgotten losses leave the size. */
    private readonly start: number,
    private readonly cache: DocumentCache | null,
    private readonly scope: string,
    private readonly token: string,
    private readonly clock: Clock,
  ) {}

  next(): number {
    return this.pacer.next();
  }

  notBefore(): number {
    return this.pacer.notBefore();
  }

  hold(untilMs: number): void {
    this.pacer.hold(untilMs);
  }

  /** The batch observed on the run's latest pace, kept at once; this slice has nothing in flight again. */
  observe(sample: BatchSample): void {
    this.read();
    this.pacer.observe(sample);
    this.write(0, true);
  }

  /** Joins the run's slices (or says it is still among them) and takes the run's latest pace. */
  sync(): void {
    const kept = this.read();
    const own = this.flights[this.token];
    // The first slice's pace is the run's until a batch is observed.
    if (!kept || !own || own[1] - this.clock.now() < IDLE_MS / 2) this.write(own?.[0] ?? 0, !kept);
  }

  /** This slice's pace becomes the run's (a pace started from what the key's service took elsewhere). */
  publish(): void {
    this.write(this.flights[this.token]?.[0] ?? 0, true);
  }

  /** A batch of `count` requests leaves now. */
  sending(count: number): void {
    this.read();
    this.write(count, false);
  }

  /** This slice ends: its entry goes, the run's latest pace stays kept. */
  leave(): void {
    this.read();
    delete this.flights[this.token];
    this.put(true);
  }

  /**
   * Waits (up to `deadline`) until the other slices' requests in flight leave room for at least half this slice's
   * share. False when the deadline came first.
   */
  awaitRoom(deadline: number): boolean {
    this.sync();
    for (let look = 0; look < 10_000; look++) {
      if (this.pacer.room() >= Math.ceil(this.pacer.share() / 2)) return true;
      if (this.clock.now() + ROOM_LOOK_MS >= deadline) return false;
      this.clock.sleep(ROOM_LOOK_MS);
      this.read();
    }
    return false;
  }

  /** The cache's entries and pace into this slice's Pacer (its own Retry-After kept); false: no pace kept. */
  private read(): boolean {
    if (!this.cache) return false;
    const now = this.clock.now();
    const read = this.cache.getAll([PACE_PREFIX + this.scope, flightsKey(this.scope)]);
    this.flights = parseFlights(read[flightsKey(this.scope)], now);
    const kept = parsePaceState(read[PACE_PREFIX + this.scope]);
    if (kept) {
      const notBefore = Math.max(kept.notBefore ?? 0, this.pacer.state.notBefore ?? 0);
      // As loadPace reads it: losses faded, the ceiling the run's cap while no 429 was met (Start's key check
      // kept one fetchAll's).
      const state = recallPace(kept, this.start, this.pacer.cap, now, true);
      this.pacer.state = { ...state, ...(notBefore ? { notBefore } : {}) };
    }
    const others = Object.entries(this.flights).filter(([token]) => token !== this.token);
    this.pacer.shares = others.length + 1;
    this.pacer.othersSending = others.reduce((sum, [, [sending]]) => sum + sending, 0);
    return kept !== undefined;
  }

  private write(sending: number, withPace: boolean): void {
    const now = this.clock.now();
    this.flights[this.token] = [sending, now + (sending > 0 ? SENDING_MS : IDLE_MS)];
    this.put(withPace);
  }

  private put(withPace: boolean): void {
    if (!this.cache) return;
    const values: Record<string, string> = { [flightsKey(this.scope)]: JSON.stringify(this.flights) };
    if (withPace) values[PACE_PREFIX + this.scope] = JSON.stringify(this.pacer.state);
    this.cache.putAll(values, PACE_SECONDS);
  }
}
