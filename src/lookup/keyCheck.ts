/**
 * The key check before the first paid batch of a =FINDEMAIL range whose pace knows nothing yet (a bulk run's is
 * Start's, src/bulk/runKeyCheck.ts): one free request without `network_url`. A 401 (the key is
 * refused), a 404 or a redirect (the configuration) halt the run before any credit is spent; a 429's Retry-After
 * holds the first batch back; a connection lost on the way counts as a loss. A gate of the lookup session.
 */
import { mayRetry } from './answers';
import type { Gate } from './gate';
import { knowsNothing, Pacer, type PaceState } from './pace';
import type { LookupPorts, SendBudget, SendPlan } from './ports';
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
 * The key check of a bulk run whose pace knows nothing (Start's check met no answer that counts: a 429, a lost
 * connection, a redirect): before its first batch, on the run's pace as a state. The error that halts the run, if
 * it met one, and the pace with the check observed.
 */
export function checkKeyOfRun(
  ports: LookupPorts,
  state: PaceState,
  cap: number,
  plan: SendPlan,
  budget: SendBudget,
): { halt?: ServiceError; state: PaceState } {
  const pacer = new Pacer(state, cap);
  const { halt } = sendKeyCheck(ports, pacer, plan, budget);
  return { halt, state: pacer.state };
}
