/**
 * Sheet writes an execution has not flushed: "if you are working with a spreadsheet, you should call
 * SpreadsheetApp.flush() prior to releasing the lock" (apps-script/reference/lock/lock#releaselock); flush "applies
 * all pending Spreadsheet changes" (apps-script/reference/spreadsheet/spreadsheet-app#flush). Until it flushes or
 * ends, an execution's writes are its own: it reads them (its view is the spreadsheet with its writes replayed on a
 * copy-on-write copy), no other execution and no person sees them.
 */
import { fail } from '../errors';
import type { SpreadsheetModel } from '../model/spreadsheet';
import type { Exec, ServiceHandler, ServiceHost } from './context';
import { SPREADSHEET_WRITES } from './context';

/** One write, replayed on the execution's view at each of its calls and on the spreadsheet at the flush. */
export interface PendingWrite {
  handler: ServiceHandler;
  method: string;
  args: unknown[];
  /** A change of the selection (not a write of the file), queued after pending writes. */
  selection?: boolean;
}

const SHEET_SERVICES = new Set([
  'SpreadsheetApp',
  'Spreadsheet',
  'Sheet',
  'Range',
  'RangeList',
  'Protection',
]);

/** The selection is the person's, not the file's: it changes at once. */
const SELECTION = new Set([
  'activate',
  'setActiveSheet',
  'setActiveRange',
  'setActiveSelection',
  'setCurrentCell',
]);

function isWrite(service: string, method: string): boolean {
  if (service === 'SpreadsheetApp' || SELECTION.has(method)) return false;
  if (service === 'Protection') return method !== 'isWarningOnly' && method !== 'getDescription';
  return (
    SPREADSHEET_WRITES.has(method) || /^(set|insert|delete|clear|hide|show|append|autoResize)/.test(method)
  );
}

/** The spreadsheet a call is about. */
function spreadsheetIdOf(exec: Exec, service: string, args: unknown[]): string | undefined {
  if (service === 'SpreadsheetApp') return exec.spreadsheetId;
  const first = args[0] as { ss?: string } | Array<{ ss?: string }> | undefined;
  return Array.isArray(first) ? first[0]?.ss : first?.ss;
}

/** The host as the execution sees it: `id` is `view`. */
function hostWith(host: ServiceHost, id: string, view: SpreadsheetModel): ServiceHost {
  return Object.create(host, {
    spreadsheet: { value: (wanted: string) => (wanted === id ? view : host.spreadsheet(wanted)) },
  }) as ServiceHost;
}

/**
 * The spreadsheet with the execution's pending writes replayed on a copy-on-write copy: its cost is that of the
 * writes and of the cells they touch, whatever the spreadsheet's size.
 */
function viewOf(host: ServiceHost, exec: Exec, id: string, writes: PendingWrite[]): SpreadsheetModel {
  const view = host.spreadsheet(id).clone();
  const viewHost = hostWith(host, id, view);
  for (const write of writes) write.handler(viewHost, exec, write.method, write.args);
  return view;
}

/** Answers a Spreadsheet-service call: writes are kept pending, reads see the execution's own pending writes. */
export function answerSheetCall(
  host: ServiceHost,
  exec: Exec,
  service: string,
  handler: ServiceHandler,
  method: string,
  args: unknown[],
): unknown {
  if (service === 'SpreadsheetApp' && method === 'flush') {
    flushPending(host, exec);
    exec.liveSinceFlush = false;
    return null;
  }
  const id = spreadsheetIdOf(exec, service, args);
  if (!SHEET_SERVICES.has(service) || !id || !host.hasSpreadsheet(id))
    return handler(host, exec, method, args);
  const writes = exec.pendingWrites?.get(id) ?? [];
  const write = isWrite(service, method);
  if (!write && writes.length === 0) return handler(host, exec, method, args);
  const value = handler(hostWith(host, id, viewOf(host, exec, id, writes)), exec, method, args);
  // A selection change after pending writes keeps its place after them (insertSheet activates the new sheet).
  if (write || SELECTION.has(method)) {
    exec.pendingWrites ??= new Map();
    exec.pendingWrites.set(id, writes);
    writes.push({ handler, method, args, selection: !write });
    // "Spreadsheet operations are sometimes bundled together" (spreadsheet-app#flush): or applied as they come.
    // Applied or not, the script cannot tell: until it flushes, the write counts as not flushed.
    if (write && host.writeGoesLive?.()) {
      flushPending(host, exec);
      exec.liveSinceFlush = true;
    }
  }
  return value;
}

export function hasPendingWrites(exec: Exec): boolean {
  if (exec.liveSinceFlush) return true;
  return [...(exec.pendingWrites?.values() ?? [])].some((writes) => writes.some((write) => !write.selection));
}

/**
 * Applies the execution's pending writes to the spreadsheets, in order. At a flush a write that no longer applies
 * (another execution changed the sheet meanwhile) throws in the execution; at its end it is dropped.
 */
export function flushPending(host: ServiceHost, exec: Exec, atEnd = false): void {
  const pending = exec.pendingWrites;
  if (!pending) return;
  exec.pendingWrites = undefined;
  let failure: unknown;
  for (const writes of pending.values()) {
    for (const write of writes) {
      try {
        write.handler(host, exec, write.method, write.args);
      } catch (error) {
        failure ??= error;
      }
    }
  }
  if (failure && !atEnd) fail(failure instanceof Error ? failure.message : String(failure));
}
