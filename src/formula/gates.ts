/**
 * The gates of a =FINDEMAIL lookup session (src/lookup/gate.ts) that live in the document cache: the halt after a
 * 401 or 402, the account check. Each begins and ends in the session's one
 * place; this file holds no claim. The order of all the formula's gates: ./execution.ts.
 */
import { HALT_SECONDS } from '../core/limits';
import { ACCOUNT_OK_KEY, HALT_KEY } from '../core/propertyNames';
import {
  ACCOUNT_CHECK_MARKERS,
  admission,
  beginAccountCheck,
  dropAccountCheck,
  endAccountCheck,
} from '../lookup/accountCheck';
import { parseHalt, readHalt, writeHalt } from '../lookup/claims';
import type { Gate } from '../lookup/gate';
import type { KeyCheckGate } from '../lookup/keyCheck';
import type { DocumentCache } from '../lookup/ports';
import { type ServiceError, serviceError } from '../lookup/result';
import { accountError } from './messages';

/** A halt another execution wrote, as the cells' error (its message says what to do). */
function haltError(message: string): ServiceError {
  return serviceError('config', message, { effect: 'pause' });
}

/** After a 401 or 402 every formula of the document pauses (HALT_SECONDS). */
export function haltFormulas(cache: DocumentCache | null, apiKey: string, halt: ServiceError): void {
  if (halt.error !== 'unauthorized' && halt.error !== 'payment_required') return;
  writeHalt(cache, apiKey, accountError(halt).message, HALT_SECONDS);
  cache?.remove(ACCOUNT_OK_KEY);
}

/** The halt after a 401 or 402 (the document cache's HALT_KEY for this key): read before the claim and each batch. */
export function haltGate(cache: DocumentCache | null, apiKey: string): Gate {
  const halted = (raw?: string | null) => {
    const halt = raw === undefined ? readHalt(cache, apiKey) : parseHalt(raw, apiKey);
    return halt && haltError(halt.message);
  };
  return {
    name: 'halt',
    markers: [HALT_KEY],
    beforeClaim() {
      const stop = halted();
      return stop && { stop };
    },
    admit(markers) {
      const stop = halted(markers[HALT_KEY] ?? null);
      return stop && { stop };
    },
    beforeBatch: () => halted(),
    afterBatch(batch) {
      if (batch.halt) haltFormulas(cache, apiKey, batch.halt);
    },
  };
}

/**
 * The account check (src/lookup/accountCheck.ts): while no charged answer proved the owner's account works, one
 * cell at a time sends its first key alone; the others wait. Not needed when this session's key check passed.
 */
export function accountCheckGate(
  cache: DocumentCache | null,
  apiKey: string,
  seconds: number,
  keyCheck: KeyCheckGate,
): Gate {
  let open = false;
  return {
    name: 'account check',
    markers: ACCOUNT_CHECK_MARKERS.filter((key) => key !== HALT_KEY),
    admit(markers, free) {
      if (!cache || keyCheck.passed()) return undefined;
      const admitted = admission(markers, apiKey, free);
      if (admitted === 'wait') return { wait: true };
      if (admitted !== 'check account') return undefined;
      const claimed = () => {
        beginAccountCheck(cache, seconds);
        open = true;
      };
      return { take: free, alone: true, claimed };
    },
    afterBatch(batch) {
      if (!open) return;
      endAccountCheck(cache, apiKey, batch.stored.length > 0);
      open = false;
    },
    close() {
      if (open) dropAccountCheck(cache);
    },
  };
}
