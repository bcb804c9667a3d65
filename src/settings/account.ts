/** The sidebar's Settings: the user's key (masked on the way out), settings and the key check. */
import type { KeyCheckResult, SidebarState } from '../api';
import type { Platform } from '../core/ports';
import { KEY_SOURCE } from '../core/product';
import { HALT_KEY } from '../core/propertyNames';
import { pickSettings } from '../core/settings';
import { quoteService } from '../core/text';
import { checkKeyShape, maskKey, redactKey } from '../lookup/apiKey';
import { askAboutKey } from '../lookup/keyCheck';

export type AccountState = Omit<SidebarState, 'progress' | 'formulas'>;

export function accountState(platform: Platform): AccountState {
  const key = platform.settings.apiKey();
  const config = platform.config();
  return {
    hasKey: key !== null,
    maskedKey: key ? maskKey(key) : '',
    settings: platform.settings.read(),
    configError: config.endpoint.ok ? '' : config.endpoint.message,
  };
}

export function saveApiKey(platform: Platform, raw: unknown): void {
  const shape = checkKeyShape(raw);
  if (!shape.ok) throw new Error(shape.message);
  platform.settings.saveApiKey(shape.key);
  platform.documentCache()?.remove(HALT_KEY);
}

export function removeApiKey(platform: Platform): void {
  platform.settings.deleteApiKey();
}

/** Spends no credit (buildKeyCheckRequest). */
export function checkApiKey(platform: Platform): KeyCheckResult {
  const key = platform.settings.apiKey();
  if (!key) return { ok: false, message: `No API key is saved yet. Get one in ${KEY_SOURCE}.` };
  const check = askAboutKey(platform, key);
  if ('config' in check) return { ok: false, message: check.config };
  if (!('valid' in check))
    return { ok: false, message: redactKey(`Could not check the API key: ${check.message}`, key) };
  if (!check.valid) {
    const said = quoteService(check.message);
    const message = `The service rejected this API key. Get a valid key in ${KEY_SOURCE}, then save it here.${said}`;
    return { ok: false, message: redactKey(message, key) };
  }
  // A top-up or a new key: formulas paused after a 401 or 402 may call the service again at once.
  platform.documentCache()?.remove(HALT_KEY);
  return { ok: true, message: 'The API key works. Checking it spent no credit.' };
}

export function saveSettings(platform: Platform, input: unknown): void {
  platform.settings.save(pickSettings(input));
}
