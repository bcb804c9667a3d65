/** The user's own API key and settings in their user properties. In a custom function these are the owner's. */

import type { Settings } from '../api';
import { DEFAULT_SETTINGS } from '../core/limits';
import { API_KEY_PROPERTY, SETTINGS_PROPERTY } from '../core/propertyNames';
import { pickSettings } from '../core/settings';
import { userProperties } from './properties';

export function readApiKey(): string | null {
  const key = userProperties().getProperty(API_KEY_PROPERTY);
  return key && key.trim() !== '' ? key : null;
}

export function writeApiKey(key: string): void {
  userProperties().setProperty(API_KEY_PROPERTY, key);
}

export function deleteApiKey(): void {
  userProperties().deleteProperty(API_KEY_PROPERTY);
}

export function readSettings(): Settings {
  const raw = userProperties().getProperty(SETTINGS_PROPERTY);
  if (!raw) return { ...DEFAULT_SETTINGS };
  try {
    return pickSettings(JSON.parse(raw));
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function writeSettings(settings: Settings): void {
  userProperties().setProperty(SETTINGS_PROPERTY, JSON.stringify(settings));
}
