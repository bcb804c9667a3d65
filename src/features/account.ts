/** The sidebar's server side: the user's key (masked on the way out), settings and the key check. */

import { sendOne } from '../adapters/http';
import {
  clearHalt,
  DEFAULT_SETTINGS,
  deleteApiKey,
  readApiKey,
  readScriptConfig,
  readSettings,
  writeApiKey,
  writeSettings,
} from '../adapters/store';
import {
  buildKeyCheckRequest,
  checkKeyShape,
  interpretFetchException,
  interpretKeyCheck,
  maskKey,
  redactKey,
} from '../core/lookup';
import type { KeyCheckResult, Settings, SidebarState } from '../core/sidebarState';
import { getEnrichmentProgress } from './enrichment';

export function getSidebarState(): SidebarState {
  const key = readApiKey();
  const config = readScriptConfig();
  return {
    hasKey: key !== null,
    maskedKey: key ? maskKey(key) : '',
    settings: readSettings(),
    progress: getEnrichmentProgress(),
    configError: config.endpoint.ok ? '' : config.endpoint.message,
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
  if (!key) return { ok: false, message: 'No API key is saved yet.' };
  const config = readScriptConfig();
  if (!config.endpoint.ok) return { ok: false, message: config.endpoint.message };
  const answer = sendOne(buildKeyCheckRequest(config.endpoint.endpoint, key));
  const check =
    'thrown' in answer
      ? interpretFetchException(answer.thrown)
      : interpretKeyCheck(answer.status, answer.body);
  if ('valid' in check) {
    return check.valid
      ? { ok: true, message: 'The key works. Checking it spent no credit.' }
      : { ok: false, message: redactKey(`The service rejected this key: ${check.message}`, key) };
  }
  return { ok: false, message: redactKey(`Could not check the key: ${check.message}`, key) };
}

export function saveSettings(input: unknown): SidebarState {
  const source = (input && typeof input === 'object' ? input : {}) as Partial<
    Record<keyof Settings, unknown>
  >;
  const settings: Settings = { ...DEFAULT_SETTINGS };
  for (const name of Object.keys(DEFAULT_SETTINGS) as Array<keyof Settings>) {
    if (typeof source[name] === 'boolean') settings[name] = source[name] as boolean;
  }
  writeSettings(settings);
  return getSidebarState();
}
