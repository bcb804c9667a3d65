/**
 * The sandbox e-mail finder service: shared/service-spec.md as a node:http handler, with credits, a ledger of
 * every request and injectable faults.
 *
 * Order of checks: route (404) -> method (405) -> rate limit (429, decided on arrival) -> X-KEY (401) -> body (400)
 * -> credits (402) -> faults (failFirst, the `flaky`/`broken` slug markers, then the rates) -> lookup (200/422,
 * 1 credit). Injected faults (500, reset, 429, 502 HTML) replace the lookup and charge nothing (`lost` charges
 * it, then resets the connection before the answer); a rate-limited
 * request is answered at once (no latency), charges nothing and is in the ledger.
 * The latency models the lookup's verification work: an answer given before any lookup (401, 400, 402, 413, and
 * the rate limit's 429) comes at once. A connection reset is a property of the connection, not of what is asked:
 * the reset rate applies to those answers too (a key check may be reset), drawn from a stream of their own so that
 * the fault sequence of the lookups is the same with or without them.
 * The credit is taken when the lookup is decided, before any delay: a client that gives up during the latency
 * has still paid, as with a real service that finished the lookup (its ledger entry has `clientGone: true`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { draw, type LatencySetting, latencyAt, validateLatency } from './latency';
import { buildLookupResponse, normalizeProfileUrl, ODD_SLUGS, profileMarkers, slugBegins } from './profiles';
import {
  type Admission,
  type LimitReason,
  type RateLimit,
  RateLimiter,
  validateRateLimit,
} from './rateLimit';

export type { LatencySetting, LongTailLatency } from './latency';
export type { RateLimit } from './rateLimit';

export const ENDPOINT_PATH = '/api/v1/network_finder';
export const MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_SLOW_FAULT_MS = 30_000;

export const MESSAGES = {
  notFound: 'Not Found',
  methodNotAllowed: 'Method Not Allowed: use POST',
  unauthorized: 'Unauthorized: Invalid API Key or Organization not found',
  badRequest: 'Please provide a valid network profile URL (network_url).',
  paymentRequired: 'Insufficient credits: 1 credit is needed to perform the email lookup.',
  internalError: 'An internal error occurred: connection time-out',
  tooManyRequests: 'Too Many Requests',
  payloadTooLarge: 'Payload Too Large',
} as const;

export const BAD_GATEWAY_HTML =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n' +
  '<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

export interface OrganizationConfig {
  name: string;
  keys: string[];
  credits: number;
}

/**
 * `lost`: the lookup is done and charged, then the connection is reset before the answer (a client that gave up, a
 * proxy that dropped it): the credit is spent and the answer never arrives.
 */
export type FaultKind = '500' | 'reset' | '429' | 'html' | 'slow' | 'lost';
export type FaultSource = 'failFirst' | 'flaky' | 'broken' | 'rate' | LimitReason;

export interface FailFirstRule {
  kind: FaultKind;
  times: number;
  /** Delay of a `slow` fault (default DEFAULT_SLOW_FAULT_MS); the answer that follows is a normal one. */
  delayMs?: number;
}

export interface FaultConfig {
  /**
   * Applied to every lookup before responding: a fixed delay, a seeded draw in [min, max], or a seeded
   * long-tailed (log-normal) draw given by its median and p95 or p99 (sandbox/latency.ts). An answer given before
   * the lookup comes at once (see the top of this file); its request still takes a draw, so the k-th request to
   * arrive gets the k-th delay of the sequence whatever it asks.
   */
  latencyMs?: LatencySetting;
  /** 429 above N requests in flight or above M a second (sandbox/rateLimit.ts); none by default. */
  rateLimit?: RateLimit;
  /** Fractions (0..1) of the requests that passed the key, body and credit checks. */
  error500Rate?: number;
  /**
   * Also applies to the requests answered before a lookup (401, 400, 402, 413: key checks among them), from a
   * seeded draw stream of their own.
   */
  resetRate?: number;
  error429Rate?: number;
  htmlErrorRate?: number;
  /** Extra delay for every lookup (time-out tests). */
  slowMs?: number;
  /** Keyed by a substring of `network_url`: the first `times` matching requests get the fault. */
  failFirst?: Record<string, FailFirstRule>;
}

export interface LedgerEntry {
  seq: number;
  startedAt: number;
  endedAt: number;
  method: string;
  path: string;
  keyKnown: boolean;
  organization?: string;
  networkUrl?: string;
  status: number | 'reset';
  charged: 0 | 1;
  fault?: FaultKind;
  faultSource?: FaultSource;
  /** The client closed the connection before the answer was written. */
  clientGone?: boolean;
  /** The delay drawn for this request (latency and slow faults), in ms. */
  delayMs?: number;
  /** A key check: a body without `network_url` (answered 400 for a known key, 401 otherwise), free of charge. */
  keyCheck?: boolean;
}

export interface SandboxOptions {
  organizations: OrganizationConfig[];
  faults?: FaultConfig;
  seed?: number;
  /** The rate limit's clock, in ms (default Date.now): tests move it by hand. */
  clock?: () => number;
  /** Called with each ledger entry when its request ends (logging). */
  onRequest?: (entry: LedgerEntry) => void;
}

export interface SandboxService {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** A copy of the ledger, in arrival order. */
  ledger(): LedgerEntry[];
  /** Peak number of requests in flight at once since the last resetLedger(). */
  readonly maxConcurrent: number;
  readonly inFlight: number;
  /** Credits already taken for requests not answered yet (not in the ledger until they end). */
  readonly chargesInFlight: number;
  /**
   * Holds every lookup, once its delay has passed, until the returned release is called (tests: a lookup provably
   * under way while something else happens, however slow the machine). The next `passing` lookups to finish their
   * delay go through first (a run then stops at a known row); lookups already waiting are held too. An answer given
   * before any lookup (401, 400, 402, a rate-limit refusal) is never held. A client that leaves while held ends its
   * request as during the latency: charged, `clientGone`. Only one hold at a time.
   */
  hold(passing?: number): () => void;
  /** Lookups waiting for a hold's release now. */
  readonly held: number;
  /** Normalised profile URL -> credits charged for it. */
  chargesByUrl(): Record<string, number>;
  totalCharged(): number;
  credits(orgName: string): number;
  setCredits(orgName: string, credits: number): void;
  addCredits(orgName: string, credits: number): void;
  organizations(): OrganizationConfig[];
  resetLedger(): void;
  /**
   * Replaces the faults and restarts their deterministic sequences (failFirst counts, rates, flaky memory,
   * latency draws). The rate limit's counts (requests under way, the last second's) carry on.
   */
  configure(faults: FaultConfig): void;
  readonly faults: FaultConfig;
}

interface Decision {
  status: number;
  body?: unknown;
  html?: string;
  headers?: Record<string, string>;
  reset?: boolean;
  charged: 0 | 1;
  fault?: FaultKind;
  faultSource?: FaultSource;
  extraDelayMs: number;
  /** Answered without the latency: before any lookup (a rate-limit refusal, 401, 400, 402, 404...). */
  immediate?: boolean;
  keyCheck?: boolean;
  keyKnown: boolean;
  organization?: string;
  networkUrl?: string;
}

function checkRate(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0 && value <= 1)) {
    throw new RangeError(`faults.${name} must be a number between 0 and 1, got ${value}`);
  }
}

function checkDelay(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(`faults.${name} must be a non-negative number of milliseconds, got ${value}`);
  }
}

function validateFaults(faults: FaultConfig): FaultConfig {
  for (const name of ['error500Rate', 'resetRate', 'error429Rate', 'htmlErrorRate'] as const) {
    checkRate(name, faults[name]);
  }
  checkDelay('slowMs', faults.slowMs);
  for (const [key, rule] of Object.entries(faults.failFirst ?? {})) {
    if (key === '') throw new RangeError('faults.failFirst: empty key');
    if (!['500', 'reset', '429', 'html', 'slow', 'lost'].includes(rule.kind)) {
      throw new RangeError(`faults.failFirst[${key}]: unknown kind ${String(rule.kind)}`);
    }
    if (!(Number.isInteger(rule.times) && rule.times >= 0)) {
      throw new RangeError(`faults.failFirst[${key}]: times must be a non-negative integer`);
    }
    checkDelay(`failFirst[${key}].delayMs`, rule.delayMs);
  }
  const valid: FaultConfig = {
    ...faults,
    failFirst: faults.failFirst ? structuredClone(faults.failFirst) : undefined,
  };
  valid.latencyMs = validateLatency(faults.latencyMs);
  valid.rateLimit = validateRateLimit(faults.rateLimit);
  for (const key of ['latencyMs', 'rateLimit', 'failFirst'] as const)
    if (valid[key] === undefined) delete valid[key];
  return valid;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

type BodyRead = { ok: true; text: string } | { ok: false };

function readBody(req: IncomingMessage): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyRead) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        settle({ ok: false });
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle({ ok: true, text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => settle({ ok: false }));
    req.on('close', () => settle({ ok: true, text: Buffer.concat(chunks).toString('utf8') }));
  });
}

const LIMIT_MESSAGES: Record<LimitReason, string> = {
  inFlightLimit: 'too many requests in flight, retry later',
  perSecondLimit: 'too many requests per second, retry later',
};

/** The body as a JSON object, or undefined (not JSON, not an object, or too large). */
function parseBody(body: BodyRead): Record<string, unknown> | undefined {
  if (!body.ok) return undefined;
  try {
    const parsed: unknown = JSON.parse(body.text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function createSandboxService(options: SandboxOptions): SandboxService {
  const seed = options.seed ?? 1;
  const orgs = new Map<string, { name: string; keys: string[]; credits: number }>();
  const orgByKey = new Map<string, string>();
  for (const org of options.organizations) {
    if (orgs.has(org.name)) throw new Error(`Duplicate organization ${org.name}`);
    if (!Number.isFinite(org.credits))
      throw new RangeError(`Organization ${org.name}: credits must be a number`);
    for (const key of org.keys) {
      if (key === '') throw new Error(`Organization ${org.name}: empty key`);
      if (orgByKey.has(key)) throw new Error(`Organization ${org.name}: a key is used twice`);
      orgByKey.set(key, org.name);
    }
    orgs.set(org.name, { name: org.name, keys: [...org.keys], credits: org.credits });
  }

  let faults: FaultConfig = validateFaults(options.faults ?? {});
  let failFirstUsed = new Map<string, number>();
  let flakyFailed = new Set<string>();
  let faultDraws = 0;
  /** Reset draws of the requests answered before a lookup: their own stream, so the lookups' draws never shift. */
  let earlyResetDraws = 0;
  let seq = 0;
  let ledger: LedgerEntry[] = [];
  let inFlight = 0;
  let chargesInFlight = 0;
  let maxConcurrent = 0;
  let gate: { opened: Promise<void>; open: () => void; passing: number } | undefined;
  let held = 0;

  /** Resolves once no hold is on, or once the client has left. */
  async function passGate(signal: AbortSignal): Promise<void> {
    if (gate && gate.passing > 0) {
      gate.passing -= 1;
      return;
    }
    while (gate && !signal.aborted) {
      const { opened } = gate;
      held += 1;
      try {
        await new Promise<void>((resolve) => {
          const done = () => {
            signal.removeEventListener('abort', done);
            resolve();
          };
          signal.addEventListener('abort', done, { once: true });
          opened.then(done);
        });
      } finally {
        held -= 1;
      }
    }
  }

  function org(name: string) {
    const found = orgs.get(name);
    if (!found) throw new Error(`Unknown organization ${name}`);
    return found;
  }

  const clock = options.clock ?? Date.now;
  const limiter = new RateLimiter();
  let latencyDraws = 0;

  function pickFault(
    networkUrl: string,
  ): { kind: FaultKind; source: FaultSource; delayMs?: number } | undefined {
    const normalized = normalizeProfileUrl(networkUrl);
    for (const [key, rule] of Object.entries(faults.failFirst ?? {})) {
      if (!networkUrl.includes(key) && !normalized.includes(key)) continue;
      const used = failFirstUsed.get(key) ?? 0;
      if (used >= rule.times) continue;
      failFirstUsed.set(key, used + 1);
      return { kind: rule.kind, source: 'failFirst', delayMs: rule.delayMs };
    }
    const markers = profileMarkers(networkUrl);
    if (markers.has('broken')) return { kind: '500', source: 'broken' };
    if (slugBegins(networkUrl, ODD_SLUGS.lostAnswer)) return { kind: 'lost', source: 'broken' };
    if (markers.has('flaky') && !flakyFailed.has(normalized)) {
      flakyFailed.add(normalized);
      return { kind: '500', source: 'flaky' };
    }
    const u = draw(seed, 2, faultDraws++);
    let threshold = 0;
    const rates: Array<[FaultKind, number | undefined]> = [
      ['500', faults.error500Rate],
      ['reset', faults.resetRate],
      ['429', faults.error429Rate],
      ['html', faults.htmlErrorRate],
    ];
    for (const [kind, rate] of rates) {
      threshold += rate ?? 0;
      if (u < threshold) return { kind, source: 'rate' };
    }
    return undefined;
  }

  /**
   * An answer given before any lookup: at once (no verification work), unless its connection is reset (the reset
   * rate, drawn from the stream of such answers).
   */
  function beforeLookup(decision: Decision): Decision {
    const reset = draw(seed, 3, earlyResetDraws++) < (faults.resetRate ?? 0);
    if (!reset) return { ...decision, immediate: true };
    return { ...decision, status: 0, reset: true, fault: 'reset', faultSource: 'rate', immediate: true };
  }

  function decide(req: IncomingMessage, path: string, body: BodyRead, admission?: Admission): Decision {
    const base = { charged: 0 as const, extraDelayMs: 0, keyKnown: false, immediate: true };
    if (path !== ENDPOINT_PATH) return { ...base, status: 404, body: { error: MESSAGES.notFound } };
    if (req.method !== 'POST') {
      return { ...base, status: 405, body: { error: MESSAGES.methodNotAllowed }, headers: { Allow: 'POST' } };
    }
    if (admission && !admission.admitted) {
      const refusedUrl = parseBody(body)?.network_url;
      return {
        ...base,
        // Which profile was refused, for the ledger (the body is read, not checked).
        networkUrl: typeof refusedUrl === 'string' ? refusedUrl : undefined,
        status: 429,
        body: { error: `${MESSAGES.tooManyRequests}: ${LIMIT_MESSAGES[admission.reason]}` },
        headers: { 'Retry-After': String(admission.retryAfterSeconds) },
        fault: '429',
        faultSource: admission.reason,
        immediate: true,
      };
    }
    const parsed = parseBody(body);
    const keyCheck = parsed !== undefined && !Object.hasOwn(parsed, 'network_url');
    const key = headerValue(req.headers['x-key']);
    const orgName = key === undefined ? undefined : orgByKey.get(key);
    if (orgName === undefined)
      return beforeLookup({ ...base, status: 401, body: { error: MESSAGES.unauthorized }, keyCheck });
    const known = { ...base, keyKnown: true, organization: orgName };
    if (!body.ok) return beforeLookup({ ...known, status: 413, body: { error: MESSAGES.payloadTooLarge } });
    const networkUrl = parsed?.network_url;
    if (typeof networkUrl !== 'string' || networkUrl.trim() === '') {
      return beforeLookup({ ...known, status: 400, body: { error: MESSAGES.badRequest }, keyCheck });
    }
    // From here on the lookup's verification work: the latency applies.
    const withUrl = { ...known, networkUrl, immediate: false };
    const account = org(orgName);
    if (account.credits < 1)
      return beforeLookup({ ...withUrl, status: 402, body: { error: MESSAGES.paymentRequired } });
    const fault = pickFault(networkUrl);
    const faulted = { ...withUrl, fault: fault?.kind, faultSource: fault?.source };
    switch (fault?.kind) {
      case '500':
        return { ...faulted, status: 500, body: { error: MESSAGES.internalError } };
      case 'reset':
        return { ...faulted, status: 0, reset: true };
      case '429':
        return {
          ...faulted,
          status: 429,
          body: { error: MESSAGES.tooManyRequests },
          headers: { 'Retry-After': '1' },
        };
      case 'html':
        return { ...faulted, status: 502, html: BAD_GATEWAY_HTML };
      default: {
        const answer = buildLookupResponse(networkUrl);
        account.credits -= 1;
        return {
          ...faulted,
          status: answer.status,
          body: answer.body,
          charged: 1,
          extraDelayMs: fault?.kind === 'slow' ? (fault.delayMs ?? DEFAULT_SLOW_FAULT_MS) : 0,
          reset: fault?.kind === 'lost',
        };
      }
    }
  }

  async function respond(
    req: IncomingMessage,
    res: ServerResponse,
    n: number,
    startedAt: number,
    latencyMs: number,
    admission?: Admission,
  ) {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableEnded) controller.abort();
    });
    const path = new URL(req.url ?? '/', 'http://sandbox.invalid').pathname;
    const body = await readBody(req);
    let decision: Decision;
    try {
      decision = decide(req, path, body, admission);
    } catch (error) {
      const cause = error instanceof Error ? error.message : String(error);
      decision = {
        status: 500,
        body: { error: `An internal error occurred: ${cause}` },
        charged: 0,
        extraDelayMs: 0,
        keyKnown: false,
      };
    }
    // Taken now, in the ledger when the request ends: counted as in flight meanwhile.
    chargesInFlight += decision.charged;
    try {
      return await answer(req, res, controller, body, decision, { n, startedAt, latencyMs, path });
    } finally {
      chargesInFlight -= decision.charged;
    }
  }

  /** Waits the request's latency, then writes its answer (unless the client left) and returns its ledger entry. */
  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    controller: AbortController,
    body: BodyRead,
    decision: Decision,
    request: { n: number; startedAt: number; latencyMs: number; path: string },
  ): Promise<LedgerEntry> {
    const { n, startedAt, latencyMs, path } = request;
    const method = req.method ?? '';
    const delayMs = decision.immediate ? 0 : latencyMs + (faults.slowMs ?? 0) + decision.extraDelayMs;
    await sleep(delayMs, controller.signal);
    if (!decision.immediate) await passGate(controller.signal);

    const entry: LedgerEntry = {
      seq: n,
      startedAt,
      endedAt: 0,
      method,
      path,
      keyKnown: decision.keyKnown,
      status: decision.reset ? 'reset' : decision.status,
      charged: decision.charged,
      delayMs,
    };
    if (decision.keyCheck) entry.keyCheck = true;
    if (decision.organization !== undefined) entry.organization = decision.organization;
    if (decision.networkUrl !== undefined) entry.networkUrl = decision.networkUrl;
    if (decision.fault !== undefined) entry.fault = decision.fault;
    if (decision.faultSource !== undefined) entry.faultSource = decision.faultSource;

    if (controller.signal.aborted || res.destroyed) {
      entry.clientGone = true;
    } else if (decision.reset) {
      req.socket.destroy();
    } else {
      const text = decision.html ?? JSON.stringify(decision.body);
      res.writeHead(decision.status, {
        'Content-Type':
          decision.html === undefined ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
        'Content-Length': Buffer.byteLength(text),
        ...decision.headers,
        // The rest of an oversized body is never read: the connection cannot be reused.
        ...(body.ok ? {} : { Connection: 'close' }),
      });
      res.end(text);
    }
    entry.endedAt = Date.now();
    return entry;
  }

  const service: SandboxService = {
    handle(req, res) {
      const n = ++seq;
      const startedAt = Date.now();
      const generation = ledger;
      inFlight += 1;
      maxConcurrent = Math.max(maxConcurrent, inFlight);
      // Decided on arrival, in arrival order: which requests are refused, and the k-th request's delay.
      const path = new URL(req.url ?? '/', 'http://sandbox.invalid').pathname;
      const admission =
        path === ENDPOINT_PATH && req.method === 'POST'
          ? limiter.admit(faults.rateLimit, clock())
          : undefined;
      const latencyMs = latencyAt(faults.latencyMs, seed, latencyDraws++);
      respond(req, res, n, startedAt, latencyMs, admission)
        .catch((error: unknown): LedgerEntry => {
          // Unreachable in practice; never leave a request hanging.
          if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ error: `An internal error occurred: ${String(error)}` }));
          return {
            seq: n,
            startedAt,
            endedAt: Date.now(),
            method: req.method ?? '',
            path: req.url ?? '',
            keyKnown: false,
            status: 500,
            charged: 0,
            delayMs: 0,
          };
        })
        .then((entry) => {
          inFlight -= 1;
          if (admission?.admitted) limiter.release();
          // A request that began before resetLedger() is not logged into the new ledger.
          if (generation === ledger) ledger.push(entry);
          options.onRequest?.(entry);
        });
    },
    ledger: () => [...ledger].sort((a, b) => a.seq - b.seq).map((entry) => ({ ...entry })),
    get maxConcurrent() {
      return maxConcurrent;
    },
    get inFlight() {
      return inFlight;
    },
    get chargesInFlight() {
      return chargesInFlight;
    },
    hold(passing = 0) {
      if (gate) throw new Error('The sandbox is held already: release it first.');
      if (!(Number.isInteger(passing) && passing >= 0)) {
        throw new RangeError('hold: passing must be a non-negative integer');
      }
      let open = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      const mine = { opened, open, passing };
      gate = mine;
      return () => {
        if (gate === mine) gate = undefined;
        mine.open();
      };
    },
    get held() {
      return held;
    },
    chargesByUrl() {
      const charges: Record<string, number> = {};
      for (const entry of ledger) {
        if (entry.charged === 1 && entry.networkUrl !== undefined) {
          const key = normalizeProfileUrl(entry.networkUrl);
          charges[key] = (charges[key] ?? 0) + 1;
        }
      }
      return charges;
    },
    totalCharged: () => ledger.reduce((sum, entry) => sum + entry.charged, 0),
    credits: (name) => org(name).credits,
    setCredits(name, credits) {
      if (!Number.isFinite(credits)) throw new RangeError('credits must be a number');
      org(name).credits = credits;
    },
    addCredits(name, credits) {
      if (!Number.isFinite(credits)) throw new RangeError('credits must be a number');
      org(name).credits += credits;
    },
    organizations: () =>
      [...orgs.values()].map((o) => ({ name: o.name, keys: [...o.keys], credits: o.credits })),
    resetLedger() {
      ledger = [];
      maxConcurrent = inFlight;
    },
    configure(next) {
      faults = validateFaults(next);
      failFirstUsed = new Map();
      flakyFailed = new Set();
      faultDraws = 0;
      earlyResetDraws = 0;
      latencyDraws = 0;
    },
    get faults() {
      return structuredClone(faults);
    },
  };
  return service;
}
