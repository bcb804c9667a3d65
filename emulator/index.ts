/**
 * The Apps Script emulator: runs a clasp-ready folder (dist/: Code.js, the HTML files, appsscript.json) as Apps
 * Script does. See README.md in this folder.
 *
 *   const env = new Environment({ scriptProperties: { API_BASE_URL: sandbox.baseUrl } });
 *   const ss = env.createSpreadsheet({ owner: 'owner@example.com', data: [['Profile URL'], ['https://…']] });
 *   env.userProperties('owner@example.com').set({ PEF_API_KEY: KEY });
 *   env.select(ss.id, 'A1:A2');
 *   await env.run('enrichSelection', [], { spreadsheetId: ss.id });
 *   await env.recalculate(ss.id);                  // evaluates =FINDEMAIL(...) cells as custom functions
 *   await env.close();
 */
export * from './constants';
export { AppsScriptException, ExecutionError, ProtectionWarningError } from './errors';
export {
  addCounts,
  cacheCalls,
  isSpreadsheetCall,
  propertyCalls,
  spreadsheetCalls,
} from './host/counts';
export { customFunctionNames, type ParsedCall, parseFormulaCall } from './host/custom-functions';
export { DIST_DIR, Environment } from './host/environment';
export { notAllowlistedMessage } from './host/manifest';
export { DAILY_QUOTAS } from './host/quotas';
export {
  type Fired,
  type RefusedTrigger,
  TRIGGER_RUNTIME_DAILY_MS,
  TRIGGER_RUNTIME_EXCEEDED,
} from './host/triggers';
export { injectShim, SHIM } from './html/shim';
export { columnName, parseA1, rangeName } from './model/a1';
export { CACHE_MAX_SECONDS, type CacheEntry, CacheStore } from './model/cache';
export { LOADING } from './model/cells';
export { PROPERTY_STORE_BYTES, PROPERTY_VALUE_BYTES, PropertyStore } from './model/properties';
export {
  type Cell,
  type CellSnapshot,
  type CellValue,
  MAX_CELL_CHARS,
  PLAIN_TEXT,
  type SheetModel,
  type SheetSnapshot,
  SpreadsheetModel,
  type SpreadsheetSnapshot,
} from './model/spreadsheet';
export { displayValue, parseEntered } from './model/values';
export {
  MAX_TRIGGERS_PER_USER,
  oneOfEachType,
  TEST_DEPLOYMENT_TRIGGERS,
  TOO_MANY_TRIGGERS,
} from './services/script';
export type * from './types';
