/**
 * The connection probe of a bulk run and of a =FINDEMAIL range (issues 10.10 and 12.1). fetchAll loses every
 * answer of a batch when one connection fails, and the service has charged the others: the first paid batches
 * must stay small until the connection is known to hold, which costs a fast run its first batches. So before the
 * first paid batch of a run whose pace knows nothing, one fetchAll of free key checks (PROBE_REQUESTS) asks: all
 * clean, the paid batches start at PROBE_START; lost, the pace starts at 1 with the loss counted
 * (src/lookup/pace.ts, `observeProbe`). Its answers say more, for free: a 401 (the key is refused), a 404 or a
 * redirect (the configuration) halt the run before any credit is spent; a 429's Retry-After holds the first
 * batch back.
 */

import { PROBE_REQUESTS, PROBE_START } from '../core/limits';
import { haltsRun, mayRetry } from './answers';
import type { ServiceError } from './contract';
import { knowsNothing, type Pacer } from './pace';
import type { LookupPorts, SendBudget, SendPlan } from './ports';

/** Sends the probe when the pace knows nothing; the error that halts the run, if the probe met one. */
export function probeConnection(
  ports: LookupPorts,
  pacer: Pacer,
  plan: SendPlan,
  budget: SendBudget,
): ServiceError | undefined {
  const { transport, clock } = ports;
  if (!transport.probe || !knowsNothing(pacer.state)) return undefined;
  const started = clock.now();
  // Inside the budget only, and never before a Retry-After kept from earlier; otherwise the first paid batch goes
  // out unprobed, at the pace's start.
  if (!budget.mayStart(started, 0, false) || pacer.notBefore() > started) return undefined;
  const sent = transport.probe(Math.min(PROBE_REQUESTS, pacer.cap), plan);
  const ended = clock.now();
  const halt = sent.errors.find(haltsRun);
  if (halt) return halt;
  const retryAfterMs = Math.max(0, ...sent.errors.map((error) => error?.retryAfterMs ?? 0));
  if (retryAfterMs > 0) pacer.hold(ended + retryAfterMs);
  const failed = sent.errors.filter(mayRetry);
  pacer.observeProbe(
    {
      size: sent.sent,
      durationMs: ended - started,
      failures: failed.length,
      lostBatch: sent.lost,
      // 429 or 5xx: the service is limiting.
      throttled: failed.filter((error) => error?.status).length,
    },
    PROBE_START,
  );
  return undefined;
}
