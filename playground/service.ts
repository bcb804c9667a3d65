/** The sandbox e-mail service of the playground: a demo organization and key, its panel's view, its saved state. */

import { isLongTail } from '../sandbox/latency';
import { type SandboxServer, startSandbox } from '../sandbox/server';
import type { FaultConfig, LedgerEntry, RateLimit } from '../sandbox/service';
import { LEDGER_SHOWN, type LedgerRow, type SandboxChange, type SandboxView } from './protocol';

export const DEMO_ORGANIZATION = 'demo';
export const DEMO_KEY = 'pef-demo-key-7f3a9c2e';
export const DEFAULT_LATENCY_MS = 300;
export const DEFAULT_CREDITS = 500;
/** Ledger rows kept across restarts. */
const LEDGER_KEPT = 2000;

export interface SavedService {
  credits: number;
  faults: FaultConfig;
  /** Oldest first. */
  ledger: LedgerRow[];
  charged: number;
  requests: number;
}

export interface DemoService {
  sandbox: SandboxServer;
  view(): SandboxView;
  change(change: SandboxChange): SandboxView;
  /** What a restart needs: credits, faults, the ledger so far. */
  save(): SavedService;
  close(): Promise<void>;
}

function row(entry: LedgerEntry, n: number): LedgerRow {
  const result: LedgerRow = {
    n,
    at: entry.startedAt,
    url: entry.networkUrl ?? entry.path,
    status: String(entry.status),
    charged: entry.charged,
  };
  if (entry.fault) result.fault = entry.fault;
  if (entry.keyCheck) result.keyCheck = true;
  if (entry.faultSource === 'inFlightLimit' || entry.faultSource === 'perSecondLimit') result.limited = true;
  return result;
}

/** The highest rate limit the panel sets. */
const MAX_LIMIT = 1000;

function clamp(value: unknown, min: number, max: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new RangeError(`${name} must be a number`);
  return Math.min(max, Math.max(min, value));
}

export async function startDemoService(options: {
  /** The demo organization's credits (`--credits`, at every start); without it, the saved ones or the default. */
  credits?: number;
  /** Default: the saved latency, else DEFAULT_LATENCY_MS. */
  latencyMs?: number;
  saved?: SavedService;
}): Promise<DemoService> {
  const saved = options.saved;
  const faults: FaultConfig = {
    ...(saved?.faults ?? {}),
    latencyMs: options.latencyMs ?? saved?.faults.latencyMs ?? DEFAULT_LATENCY_MS,
  };
  const sandbox = await startSandbox({
    port: 0,
    organizations: [
      {
        name: DEMO_ORGANIZATION,
        keys: [DEMO_KEY],
        credits: options.credits ?? saved?.credits ?? DEFAULT_CREDITS,
      },
    ],
    faults,
  });
  const history: LedgerRow[] = saved?.ledger.slice(-LEDGER_KEPT) ?? [];
  const chargedBefore = saved?.charged ?? 0;
  const requestsBefore = saved?.requests ?? 0;

  const ledgerRows = (): LedgerRow[] => {
    const offset = requestsBefore;
    return [...history, ...sandbox.service.ledger().map((entry, index) => row(entry, offset + index + 1))];
  };

  const view = (): SandboxView => {
    const faultsNow = sandbox.service.faults;
    const latency = faultsNow.latencyMs;
    const rows = ledgerRows();
    return {
      organization: DEMO_ORGANIZATION,
      maskedKey: `••••••••${DEMO_KEY.slice(-4)}`,
      // One moment for both: a credit taken for a request still under way is charged already (its ledger row comes
      // when it ends), so "Credits left" never drops before "charged" rises.
      credits: sandbox.service.credits(DEMO_ORGANIZATION),
      charged: chargedBefore + sandbox.service.totalCharged() + sandbox.service.chargesInFlight,
      // The same moment for requests: one still under way counts (its credit may be taken already).
      requests: requestsBefore + sandbox.service.ledger().length + sandbox.service.inFlight,
      inFlight: sandbox.service.inFlight,
      latencyMs:
        typeof latency === 'number'
          ? latency
          : Array.isArray(latency)
            ? latency[1]
            : isLongTail(latency)
              ? latency.medianMs
              : 0,
      latencyP99Ms: isLongTail(latency) ? (latency.p99Ms ?? 0) : 0,
      maxInFlight: faultsNow.rateLimit?.maxInFlight ?? 0,
      maxPerSecond: faultsNow.rateLimit?.maxPerSecond ?? 0,
      error500Rate: faultsNow.error500Rate ?? 0,
      resetRate: faultsNow.resetRate ?? 0,
      ledger: rows.slice(-LEDGER_SHOWN).reverse(),
    };
  };

  return {
    sandbox,
    view,
    change(change) {
      const service = sandbox.service;
      if (change.credits !== undefined) {
        service.setCredits(DEMO_ORGANIZATION, Math.floor(clamp(change.credits, 0, 1e9, 'credits')));
      }
      if (change.addCredits !== undefined) {
        service.addCredits(DEMO_ORGANIZATION, Math.floor(clamp(change.addCredits, 0, 1e9, 'addCredits')));
      }
      const next: FaultConfig = { ...service.faults };
      let faultsChanged = false;
      if (change.latencyMs !== undefined || change.latencyP99Ms !== undefined) {
        const current = view();
        const median =
          change.latencyMs === undefined
            ? current.latencyMs
            : Math.round(clamp(change.latencyMs, 0, 10_000, 'latencyMs'));
        const p99 =
          change.latencyP99Ms === undefined
            ? current.latencyP99Ms
            : Math.round(clamp(change.latencyP99Ms, 0, 60_000, 'latencyP99Ms'));
        if (p99 === 0) next.latencyMs = median;
        else if (p99 <= median) {
          throw new RangeError(
            `The p99 latency (${p99} ms) must be above the median (${median} ms), or 0 for none.`,
          );
        } else next.latencyMs = { medianMs: median, p99Ms: p99 };
        faultsChanged = true;
      }
      if (change.maxInFlight !== undefined || change.maxPerSecond !== undefined) {
        const limit: RateLimit = { ...next.rateLimit };
        for (const name of ['maxInFlight', 'maxPerSecond'] as const) {
          const value = change[name];
          if (value === undefined) continue;
          const count = Math.floor(clamp(value, 0, MAX_LIMIT, name));
          if (count === 0) delete limit[name];
          else limit[name] = count;
        }
        next.rateLimit = limit.maxInFlight || limit.maxPerSecond ? limit : undefined;
        faultsChanged = true;
      }
      if (change.error500Rate !== undefined) {
        next.error500Rate = clamp(change.error500Rate, 0, 1, 'error500Rate');
        faultsChanged = true;
      }
      if (change.resetRate !== undefined) {
        next.resetRate = clamp(change.resetRate, 0, 1, 'resetRate');
        faultsChanged = true;
      }
      if (faultsChanged) service.configure(next);
      return view();
    },
    save() {
      const current = view();
      return {
        credits: current.credits,
        faults: sandbox.service.faults,
        ledger: ledgerRows().slice(-LEDGER_KEPT),
        charged: current.charged,
        requests: current.requests,
      };
    },
    close: () => sandbox.close(),
  };
}
