/** The sidebar's server side: the user's key (masked on the way out), settings and the key check. */

import { clearHalt } from '../adapters/documentCache';
import { sendOne } from '../adapters/http';
import { readScriptConfig } from '../adapters/scriptConfig';
import {
  deleteApiKey,
  pickSettings,
  readApiKey,
  readSettings,
  writeApiKey,
  writeSettings,
} from '../adapters/settings';
import type { KeyCheckResult, SidebarState } from '../api';
import { getEnrichmentProgress } from '../bulk/controls';
import { SETTINGS_PATH } from '../core/product';
import { quoteService } from '../core/text';
import { readFormulaCapState } from '../formula/dailyLimit';
import { checkKeyShape, maskKey, redactKey } from '../lookup/apiKey';
import {
  buildKeyCheckRequest,
  interpretFetchException,
  interpretKeyCheck,
  type KeyCheck,
} from '../lookup/contract';
import { keepPendingResults } from '../store/resultStore';

export function getSidebarState(): SidebarState {
  // Opening the sidebar may write the spreadsheet: what formulas paid for moves into the results sheet.
  keepPendingResults();
  const key = readApiKey();
  const config = readScriptConfig();
  return {
    hasKey: key !== null,
    maskedKey: key ? maskKey(key) : '',
    settings: readSettings(),
    progress: getEnrichmentProgress(),
    configError: config.endpoint.ok ? '' : config.endpoint.message,
    formulas: readFormulaCapState(),
  };
}

export function saveApiKey(raw: unknown): SidebarState {
  const shape = checkKeyShape(raw);
  if (!shape.ok) throw new Error(shape.message);
  writeApiKey(shape.key);
  clearHalt();
  return getSidebarState();
}

export function removeApiKey(): SidebarState {
  deleteApiKey();
  return getSidebarState();
}

/** Where a person gets a valid key (the service's dashboard, /work/shared/service-spec.md). */
export const KEY_SOURCE = "Account › API settings in the service's dashboard";

/** The key check's request and its verdict (one request, no credit: see buildKeyCheckRequest). */
function askServiceAboutKey(key: string): KeyCheck | { config: string } {
  const config = readScriptConfig();
  if (!config.endpoint.ok) return { config: config.endpoint.message };
  const answer = sendOne(buildKeyCheckRequest(config.endpoint.endpoint, key));
  return 'thrown' in answer
    ? interpretFetchException(answer.thrown)
    : interpretKeyCheck(answer.status, answer.body);
}

/** What Start's key check found: why the run must not start, or how long the service took to accept the key. */
export interface RunKeyCheck {
  refusal?: string;
  /** The service accepted the key (answered the free check) in this many ms: the run's own key check. */
  acceptedInMs?: number;
}

/**
 * Before a run changes anything in the sheet: why it must not start for the starter's key (none saved, or one the
 * service rejects with a 401). One free key check; any other answer lets the run start, and the run handles it as
 * it does mid-run. `then`: what to do once a valid key is saved, where the message is shown.
 */
export function checkKeyForRun(then: string, now: () => number): RunKeyCheck {
  const key = readApiKey();
  if (!key) {
    return {
      refusal: `No API key is saved for you, so the run did not start and nothing in the sheet changed. Get a key in ${KEY_SOURCE}, save it in ${SETTINGS_PATH}, then ${then}.`,
    };
  }
  const started = now();
  const check = askServiceAboutKey(key);
  if (!('valid' in check)) return {};
  if (check.valid) return { acceptedInMs: now() - started };
  return {
    refusal: redactKey(
      `The service rejected your API key, so the run did not start and nothing in the sheet changed. Get a valid key in ${KEY_SOURCE}, save it in ${SETTINGS_PATH}, then ${then}.${quoteService(check.message)}`,
      key,
    ),
  };
}

/** Asks the service about the saved key without spending a credit (see buildKeyCheckRequest). */
export function checkApiKey(): KeyCheckResult {
  const key = readApiKey();
  if (!key) return { ok: false, message: `No API key is saved yet. Get one in ${KEY_SOURCE}.` };
  const check = askServiceAboutKey(key);
  if ('config' in check) return { ok: false, message: check.config };
  if ('valid' in check) {
    if (!check.valid) {
      return {
        ok: false,
        message: redactKey(
          `The service rejected this API key. Get a valid key in ${KEY_SOURCE}, then save it here.${quoteService(check.message)}`,
          key,
        ),
      };
    }
    // A top-up or a new key: formulas paused after a 401 or 402 may call the service again at once.
    clearHalt();
    return { ok: true, message: 'The API key works. Checking it spent no credit.' };
  }
  return { ok: false, message: redactKey(`Could not check the API key: ${check.message}`, key) };
}

export function saveSettings(input: unknown): SidebarState {
  writeSettings(pickSettings(input));
  return getSidebarState();
}
