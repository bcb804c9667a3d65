/** The sidebar's server side: the user's key (masked on the way out), settings and the key check. */

import { clearHalt } from '../adapters/documentCache';
import { askServiceAboutKey } from '../adapters/http';
import { appsScript } from '../adapters/platform';
import { keepPendingResults } from '../adapters/ports';
import { readScriptConfig } from '../adapters/scriptConfig';
import { deleteApiKey, readApiKey, readSettings, writeApiKey, writeSettings } from '../adapters/settings';
import type { KeyCheckResult, SidebarState } from '../api';
import { getEnrichmentProgress } from '../bulk/controls';
import { KEY_SOURCE } from '../core/product';
import { pickSettings } from '../core/settings';
import { quoteService } from '../core/text';
import { readFormulaCapState } from '../formula/dailyLimit';
import { checkKeyShape, maskKey, redactKey } from '../lookup/apiKey';

export function getSidebarState(): SidebarState {
  // Opening the sidebar may write the spreadsheet: what formulas paid for moves into the results sheet.
  keepPendingResults();
  const key = readApiKey();
  const config = readScriptConfig();
  return {
    hasKey: key !== null,
    maskedKey: key ? maskKey(key) : '',
    settings: readSettings(),
    progress: getEnrichmentProgress(appsScript),
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
