/** The sidebar's server side: the user's key (masked on the way out), settings and the key check. */

import type { KeyCheckResult, SidebarState } from '../api';
import { getEnrichmentProgress } from '../bulk/controls';
import { KEY_SOURCE } from '../core/product';
import { pickSettings } from '../core/settings';
import { quoteService } from '../core/text';
import { readFormulaCapState } from '../formula/dailyLimit';
import { checkKeyShape, maskKey, redactKey } from '../lookup/apiKey';
import type { Platform } from '../platform/platform';

export function getSidebarState(platform: Platform): SidebarState {
  // Opening the sidebar may write the spreadsheet: what formulas paid for moves into the results sheet.
  platform.keepPendingResults();
  const key = platform.settings.apiKey();
  const config = platform.config();
  return {
    hasKey: key !== null,
    maskedKey: key ? maskKey(key) : '',
    settings: platform.settings.read(),
    progress: getEnrichmentProgress(platform),
    configError: config.endpoint.ok ? '' : config.endpoint.message,
    formulas: readFormulaCapState(platform),
  };
}

export function saveApiKey(platform: Platform, raw: unknown): SidebarState {
  const shape = checkKeyShape(raw);
  if (!shape.ok) throw new Error(shape.message);
  platform.settings.saveApiKey(shape.key);
  platform.clearHalt();
  return getSidebarState(platform);
}

export function removeApiKey(platform: Platform): SidebarState {
  platform.settings.deleteApiKey();
  return getSidebarState(platform);
}

/** Asks the service about the saved key without spending a credit (see buildKeyCheckRequest). */
export function checkApiKey(platform: Platform): KeyCheckResult {
  const key = platform.settings.apiKey();
  if (!key) return { ok: false, message: `No API key is saved yet. Get one in ${KEY_SOURCE}.` };
  const check = platform.askServiceAboutKey(key);
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
    platform.clearHalt();
    return { ok: true, message: 'The API key works. Checking it spent no credit.' };
  }
  return { ok: false, message: redactKey(`Could not check the API key: ${check.message}`, key) };
}

export function saveSettings(platform: Platform, input: unknown): SidebarState {
  platform.settings.save(pickSettings(input));
  return getSidebarState(platform);
}
