/** The platform the features reach Apps Script through (src/platform/platform.ts), over the real services. */

import { foldedIntoJob } from '../bulk/step';
import type { Platform } from '../platform/platform';
import type { Folded } from '../store/ports';
import { addonSheets } from './addonSheets';
import { spreadsheetDay, systemClock, timeText } from './clock';
import { createExportSheet, creditsLog, writeExportRows } from './creditsSheet';
import { clearHalt, documentCache } from './documentCache';
import { documentPropertyWritable } from './formulaWrites';
import { askServiceAboutKey } from './http';
import { tryWithDocumentLock, withDocumentLock, withDocumentLockRetried } from './lock';
import { foldAnswers, folding, resultStore, servicePorts } from './ports';
import { documentProperties, documentPropertiesOrNull, userProperties } from './properties';
import { ensureRunnerId, runnerEmail, runnerId } from './runner';
import { readCachedScriptConfig, readScriptConfig } from './scriptConfig';
import { deleteApiKey, readApiKey, readSettings, writeApiKey, writeSettings } from './settings';
import { editedCells, spreadsheetPort } from './sheets';
import { activeSpreadsheet, activeSpreadsheetOrNull } from './spreadsheet';
import {
  createWatchTriggers,
  deleteMyWatchTriggers,
  deleteWatchTriggers,
  watchTriggersPresent,
} from './triggers';
import { confirm, showAlert, showSidebar } from './ui';

/** A bulk run's credits counted in its job when another execution folds its batches. */
const countInJob = (folded: Folded, all: Record<string, string>) =>
  foldedIntoJob(folded, all, systemClock.now());

/** What the simple triggers fold (the batches formulas and runs paid for). */
export const triggerFolding = folding(countInJob);

/** Apps Script itself. Nothing is reached before a member is called: a custom function pays only for what it uses. */
export const appsScript: Platform = {
  clock: { ...systemClock, timeText: (ms) => timeText(ms), day: spreadsheetDay },
  lock: {
    with: withDocumentLock,
    withRetried: (work) => withDocumentLockRetried(systemClock, work),
    tryWith: (work) => tryWithDocumentLock(work),
  },
  documentProperties,
  documentPropertiesOrNull,
  userProperties,
  documentCache,
  config: readScriptConfig,
  cachedConfig: readCachedScriptConfig,
  runner: { id: runnerId, ensureId: ensureRunnerId, email: runnerEmail },
  settings: {
    apiKey: readApiKey,
    saveApiKey: writeApiKey,
    deleteApiKey,
    read: readSettings,
    save: writeSettings,
  },
  spreadsheet: () => spreadsheetPort(activeSpreadsheet()),
  spreadsheetOrNull() {
    const ss = activeSpreadsheetOrNull();
    return ss ? spreadsheetPort(ss) : null;
  },
  editedCells,
  lookupPorts: servicePorts,
  resultStore: (charges) => resultStore(true, charges),
  foldAnswers: () => foldAnswers(countInJob),
  askServiceAboutKey,
  clearHalt,
  documentPropertyWritable,
  creditsLog: { ...creditsLog, createExport: createExportSheet, writeExport: writeExportRows },
  addonSheets,
  ui: { showSidebar, showAlert, confirm },
  triggers: {
    create: createWatchTriggers,
    deleteMine: deleteMyWatchTriggers,
    delete: deleteWatchTriggers,
    present: watchTriggersPresent,
  },
};
