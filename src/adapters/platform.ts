/** The Platform (src/core/ports.ts) over Apps Script's services. Nothing is reached before a member is called. */
import { configuredEndpoint, type ScriptConfig } from '../core/config';
import { DEFAULT_MAX_CONCURRENCY, MAX_BATCH_SIZE } from '../core/limits';
import type { AddonSheets, DocumentCache, Platform } from '../core/ports';
import { ADDON_NAME } from '../core/product';
import {
  API_KEY_PROPERTY,
  RUNNER_ID_PROPERTY,
  SCRIPT_PROPERTY,
  SETTINGS_PROPERTY,
} from '../core/propertyNames';
import { pickSettings } from '../core/settings';
import { parseStored } from '../core/storedJson';
import { parseNetworkHosts } from '../core/url';
import { CREDITS_LOG_LAYOUT } from '../store/credits';
import { creditsLogOn } from '../store/creditsLog';
import { RESULTS_LAYOUT } from '../store/table';
import { createExportSheet, writeExportRows } from './creditsSheet';
import { hiddenSheet } from './hiddenSheet';
import { fetchTransport } from './http';
import { documentLock } from './lock';
import { activeSpreadsheet, activeSpreadsheetOrNull, editedCells, spreadsheetPort } from './sheets';
import { watchTriggers } from './triggers';
import { confirm, showAlert, showSidebar } from './ui';

function timeZone(): string | null {
  try {
    return activeSpreadsheet()?.getSpreadsheetTimeZone() || null;
  } catch {
    return null;
  }
}

export function timeText(ms: number, now = Date.now()): string {
  const zone = timeZone();
  const tz = zone ?? 'UTC';
  const day = (at: number) => Utilities.formatDate(new Date(at), tz, 'yyyyMMdd');
  const text = Utilities.formatDate(new Date(ms), tz, day(ms) === day(now) ? 'HH:mm' : 'd MMM HH:mm');
  return zone ? text : `${text} UTC`;
}

function documentProperties(): GoogleAppsScript.Properties.Properties {
  const properties = PropertiesService.getDocumentProperties();
  if (!properties)
    throw new Error(
      `This works only inside a spreadsheet: open the spreadsheet, then use Extensions › ${ADDON_NAME} there again.`,
    );
  return properties;
}

let scriptConfig: ScriptConfig | undefined;

/** Once per execution (one property call). */
function readScriptConfig(): ScriptConfig {
  if (scriptConfig) return scriptConfig;
  const props = PropertiesService.getScriptProperties().getProperties();
  const int = (name: keyof typeof SCRIPT_PROPERTY) => {
    const value = Number(props[SCRIPT_PROPERTY[name]] ?? Number.NaN);
    return Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;
  };
  scriptConfig = {
    endpoint: configuredEndpoint(props[SCRIPT_PROPERTY.apiBaseUrl], __API_BASE_URL__, __URL_ALLOWLIST__),
    stepBudgetMs: int('stepBudgetMs'),
    batchSize: int('batchSize'),
    maxConcurrency: Math.min(MAX_BATCH_SIZE, int('maxConcurrency') ?? DEFAULT_MAX_CONCURRENCY),
    findEmailBudgetMs: int('findEmailBudgetMs'),
    slices: int('slices'),
    networkHosts: parseNetworkHosts(props[SCRIPT_PROPERTY.networkHosts]),
  };
  return scriptConfig;
}

function userSetting(key: string): string | null {
  const value = PropertiesService.getUserProperties().getProperty(key);
  return value && value.trim() !== '' ? value : null;
}

const documentCache = (): DocumentCache | null => CacheService.getDocumentCache();

const addonSheets: AddonSheets = {
  present: (names) => names.filter((name) => activeSpreadsheet().getSheetByName(name) !== null),
  remove(names) {
    const ss = activeSpreadsheet();
    return names.filter((name) => {
      const sheet = ss.getSheetByName(name);
      if (sheet) ss.deleteSheet(sheet);
      return sheet !== null;
    });
  },
};

export const appsScript: Platform = {
  clock: {
    now: () => Date.now(),
    sleep: (ms) => Utilities.sleep(ms),
    timeText: (ms) => timeText(ms),
    day: (ms) => Utilities.formatDate(new Date(ms), timeZone() ?? 'UTC', 'yyyy-MM-dd'),
  },
  lock: documentLock,
  documentProperties,
  documentPropertiesOrNull: () => PropertiesService.getDocumentProperties(),
  userProperties: () => PropertiesService.getUserProperties(),
  documentCache,
  config: readScriptConfig,
  runner: {
    id: () => PropertiesService.getUserProperties().getProperty(RUNNER_ID_PROPERTY),
    ensureId() {
      const props = PropertiesService.getUserProperties();
      const stored = props.getProperty(RUNNER_ID_PROPERTY);
      if (stored) return stored;
      const id = Utilities.getUuid();
      props.setProperty(RUNNER_ID_PROPERTY, id);
      return id;
    },
    email() {
      try {
        return Session.getActiveUser().getEmail() || '';
      } catch {
        return '';
      }
    },
  },
  settings: {
    apiKey: () => userSetting(API_KEY_PROPERTY),
    saveApiKey: (key) => void PropertiesService.getUserProperties().setProperty(API_KEY_PROPERTY, key),
    deleteApiKey: () => void PropertiesService.getUserProperties().deleteProperty(API_KEY_PROPERTY),
    read: () => pickSettings(parseStored(userSetting(SETTINGS_PROPERTY))),
    save: (settings) =>
      void PropertiesService.getUserProperties().setProperty(SETTINGS_PROPERTY, JSON.stringify(settings)),
  },
  spreadsheet: () => spreadsheetPort(activeSpreadsheet()),
  spreadsheetOrNull() {
    const ss = activeSpreadsheetOrNull();
    return ss ? spreadsheetPort(ss) : null;
  },
  editedCells,
  transport: fetchTransport,
  resultsSheet: hiddenSheet(RESULTS_LAYOUT),
  creditsLog: {
    ...creditsLogOn(hiddenSheet(CREDITS_LOG_LAYOUT)),
    createExport: createExportSheet,
    writeExport: writeExportRows,
  },
  addonSheets,
  ui: { showSidebar, showAlert, confirm },
  triggers: watchTriggers,
};
