/**
 * The key check before the first paid batch of a bulk run, or of a =FINDEMAIL range, whose pace knows nothing yet:
 * one free request without `network_url`, the only request of a run that is not a lookup. A 401 (the key is
 * refused), a 404 or a redirect (the configuration) halt the run before any credit is spent; a 429's Retry-After
 * holds the first batch back; a connection lost on the way counts as a loss. A gate of the lookup session.
 */
import { mayRetry } from './answers';
import type { Gate } from './gate';
import { knowsNothing, loadPace, type Pacer, startFromKey } from './pace';
import type { DocumentCache, LookupPorts, SendBudget, SendPlan } from './ports';
import type { ServiceError } from './result';

/** The key check as a gate: before the first claim of more than `above` keys while the pace knows nothing. */
export interface KeyCheckGate extends Gate {
  /** The key check went out in this session and passed (the key works, the address is right). */
  passed(): boolean;
}

export function keyCheckGate(
  ports: LookupPorts,
  pacer: Pacer | undefined,
  plan: SendPlan,
  budget: SendBudget,
  above: number,
  onHalt?: (halt: ServiceError) => void,
): KeyCheckGate {
  let passed = false;
  return {
    name: 'key check',
    passed: () => passed,
    beforeClaim(wanted) {
      if (!pacer || wanted <= above || !knowsNothing(pacer.state)) return undefined;
      const check = sendKeyCheck(ports, pacer, plan, budget);
      if (check.halt) {
        onHalt?.(check.halt);
        return { halt: check.halt };
      }
      passed = check.answered;
      return undefined;
    },
  };
}

/** Sends the key check when the pace knows nothing; the error that halts the run, if the check met one. */
export function checkKeyFirst(
  ports: LookupPorts,
  pacer: Pacer,
  plan: SendPlan,
  budget: SendBudget,
): ServiceError | undefined {
  return sendKeyCheck(ports, pacer, plan, budget).halt;
}

/** The key check as sent: the error that halts the run, and whether the service answered it without an error. */
function sendKeyCheck(
  ports: LookupPorts,
  pacer: Pacer,
  plan: SendPlan,
  budget: SendBudget,
): { halt?: ServiceError; answered: boolean } {
  const { transport, clock } = ports;
  if (!transport.checkKey || !knowsNothing(pacer.state)) return { answered: false };
  const started = clock.now();
  // Inside the budget only, and never before a Retry-After kept from earlier; otherwise the first paid batch goes
  // out unchecked, at the ramp's start.
  if (!budget.mayStart(started, 0, false) || pacer.notBefore() > started) return { answered: false };
  const sent = transport.checkKey(plan);
  const ended = clock.now();
  const error: ServiceError | undefined = sent.error;
  if (error && error.effect !== 'continue') return { halt: error, answered: false };
  if (error?.retryAfterMs) pacer.hold(ended + error.retryAfterMs);
  const failed = error && mayRetry(error) ? 1 : 0;
  pacer.observeKeyCheck({
    size: sent.sent,
    durationMs: ended - started,
    failures: failed,
    lostBatch: sent.lost,
    // 429 or 5xx: the service is limiting.
    throttled: failed && error?.status ? 1 : 0,
    endedAt: ended,
  });
  return { answered: !error && !sent.lost };
}

/**
 * A key check the run already sent (the bulk run's Start, a moment before its first slice) counts as the run's
 * own, so the run sends one request that is not a lookup, not two: kept in the pace of `scope`, started from what the
 * key's service took elsewhere (`key`: its hash and the user's kept figure, src/lookup/pace.ts startFromKey), so the
 * run's first slices know its pace.
 */
export function countKeyCheckSent(
  cache: DocumentCache | null,
  scope: string,
  pace: { start: number; cap: number; key?: { hash: string; read(): string | undefined } },
  answeredInMs: number,
  nowMs: number,
): void {
  const pacer = loadPace(cache, scope, pace.start, pace.cap, nowMs);
  if (!knowsNothing(pacer.state)) return;
  const { key } = pace;
  if (key) pacer.state = startFromKey(pacer.state, () => key.read(), key.hash, nowMs, pace.cap);
  pacer.observeKeyCheck({ size: 1, durationMs: answeredInMs, failures: 0, endedAt: nowMs });
  pacer.save(cache, scope);
}
