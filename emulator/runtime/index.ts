/**
 * The Apps Script runtime of one execution. host/worker-source.ts bundles this folder into one expression that the
 * worker evaluates inside each fresh vm context; `installRuntime` then puts the service globals on that context.
 * Nothing here may reach Node or the worker's scope except through the bridge (protocol.ts HostBridge).
 */
import type { ExecInfo, HostBridge, RangeD, RuntimeHandle } from '../protocol';
import { connect, exportValue, importValue } from './core';
import { installDate } from './date';
import { describeCreatedOutputs, HtmlService } from './html';
import { Range } from './range';
import { AuthMode, ScriptApp, Session } from './script';
import { Spreadsheet, SpreadsheetApp } from './spreadsheet';
import { CacheService, LockService, PropertiesService } from './stores';
import { UrlFetchApp } from './urlfetch';
import { ContentService, consoleObject, Logger, Utilities } from './utilities';

export function installRuntime(bridge: HostBridge, exec: ExecInfo): RuntimeHandle {
  connect(bridge, exec);
  const global = globalThis as unknown as Record<string, unknown>;
  installDate(globalThis);
  Object.assign(global, {
    SpreadsheetApp,
    UrlFetchApp,
    PropertiesService,
    CacheService,
    LockService,
    ScriptApp,
    HtmlService,
    Utilities,
    Session,
    Logger,
    ContentService,
    console: consoleObject,
  });
  for (const name of Object.keys(global)) {
    if (/^[A-Z]/.test(name) && name !== 'Date') Object.defineProperty(global, name, { enumerable: false });
  }
  return {
    importValue,
    exportValue: (value) => exportValue(value),
    createdOutputs: describeCreatedOutputs,
    /** The event of a trigger: the data given, its authMode, and the spreadsheet as `source` where allowed. */
    makeEvent(event, authMode) {
      const e = importValue(event) as Record<string, unknown>;
      if (e.authMode === undefined) e.authMode = AuthMode[authMode] || authMode;
      if (exec.spreadsheetId && authMode !== 'NONE' && e.source === undefined)
        e.source = new Spreadsheet({ ss: exec.spreadsheetId });
      // An edit event's range (Environment.edit passes its descriptor).
      if (e.rangeD !== undefined) {
        if (authMode !== 'NONE') e.range = new Range(e.rangeD as RangeD);
        delete e.rangeD;
      }
      return e;
    },
  };
}
