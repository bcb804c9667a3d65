/** Which module answers each service: the part of an RPC op before the first dot (`Range` in `Range.getValues`). */
import { fail } from '../errors';
import { cache, cacheService } from './cache';
import type { Exec, ServiceHandler, ServiceHost } from './context';
import { lock, lockService } from './lock';
import { answerSheetCall } from './pending';
import { properties, propertiesService } from './properties';
import { range, rangeList } from './range';
import { scriptApp, session } from './script';
import { protection, sheet } from './sheet';
import { spreadsheet, spreadsheetApp } from './spreadsheet';
import { htmlService, ui } from './ui';
import { urlFetch } from './urlfetch';

const SERVICES: Record<string, ServiceHandler> = {
  SpreadsheetApp: spreadsheetApp,
  Spreadsheet: spreadsheet,
  Sheet: sheet,
  Protection: protection,
  Range: range,
  RangeList: rangeList,
  Ui: ui,
  HtmlService: htmlService,
  PropertiesService: propertiesService,
  Properties: properties,
  CacheService: cacheService,
  Cache: cache,
  LockService: lockService,
  Lock: lock,
  UrlFetchApp: urlFetch,
  ScriptApp: scriptApp,
  Session: session,
};

/** Answers one service call of an execution; throws the service's error. */
export function answer(host: ServiceHost, exec: Exec, op: string, args: unknown[]): unknown {
  const dot = op.indexOf('.');
  const service = op.slice(0, dot);
  const handler = Object.hasOwn(SERVICES, service) ? SERVICES[service] : undefined;
  if (!handler) return fail(`Unknown service call ${op}`);
  return answerSheetCall(host, exec, service, handler, op.slice(dot + 1), args);
}
