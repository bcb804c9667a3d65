import { KEY_SOURCE, SETTINGS_PATH } from '../core/product';
import { quoteService } from '../core/text';
import { redactKey } from '../lookup/apiKey';
import type { KeyCheck } from '../lookup/result';

export interface RunKeyCheck {
  refusal?: string;
}

/** Refuses a missing key or a 401 from one free check (`ask`); any other answer lets the run start. Pure. */
export function checkKeyForRun(
  then: string,
  key: string | null,
  ask: (key: string) => KeyCheck | { config: string },
): RunKeyCheck {
  if (!key) {
    return {
      refusal: `No API key is saved for you, so the run did not start and nothing in the sheet changed. Get a key in ${KEY_SOURCE}, save it in ${SETTINGS_PATH}, then ${then}.`,
    };
  }
  const check = ask(key);
  if (!('valid' in check) || check.valid) return {};
  return {
    refusal: redactKey(
      `The service rejected your API key, so the run did not start and nothing in the sheet changed. Get a valid key in ${KEY_SOURCE}, save it in ${SETTINGS_PATH}, then ${then}.${quoteService(check.message)}`,
      key,
    ),
  };
}
