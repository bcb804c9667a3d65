/** Start's key check: whether the starter's key lets a bulk run start. Pure (the service is asked through `ask`). */
import { KEY_SOURCE, SETTINGS_PATH } from '../core/product';
import { quoteService } from '../core/text';
import { redactKey } from '../lookup/apiKey';
import type { KeyCheck } from '../lookup/result';

/** What Start's key check found: why the run must not start, or how long the service took to accept the key. */
export interface RunKeyCheck {
  refusal?: string;
  /** The service accepted the key (answered the free check) in this many ms: the run's own key check. */
  acceptedInMs?: number;
}

/**
 * Before a run changes anything in the sheet: why it must not start for the starter's key (`key`: none saved, or
 * one the service rejects with a 401). One free key check (`ask`); any other answer lets the run start, and the run
 * handles it as it does mid-run. `then`: what to do once a valid key is saved, where the message is shown.
 */
export function checkKeyForRun(
  then: string,
  now: () => number,
  key: string | null,
  ask: (key: string) => KeyCheck | { config: string },
): RunKeyCheck {
  if (!key) {
    return {
      refusal: `No API key is saved for you, so the run did not start and nothing in the sheet changed. Get a key in ${KEY_SOURCE}, save it in ${SETTINGS_PATH}, then ${then}.`,
    };
  }
  const started = now();
  const check = ask(key);
  if (!('valid' in check)) return {};
  if (check.valid) return { acceptedInMs: now() - started };
  return {
    refusal: redactKey(
      `The service rejected your API key, so the run did not start and nothing in the sheet changed. Get a valid key in ${KEY_SOURCE}, save it in ${SETTINGS_PATH}, then ${then}.${quoteService(check.message)}`,
      key,
    ),
  };
}
