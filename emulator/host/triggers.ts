/**
 * Installable spreadsheet triggers firing (the trigger records themselves: services/script.ts). What a person does
 * in Sheets fires them; what a script or the Sheets API writes fires nothing:
 *
 *   open      a person opens the spreadsheet: the simple `onOpen`, then every installable open trigger of the
 *             document, each as its creator (not when the file is opened read-only);
 *   change    a person's edit, paste or inserted rows: the simple `onEdit` (for an edit), then every installable
 *             change trigger (changeType EDIT or INSERT_ROW);
 *   form      a Google Form's response: a row appended to its response sheet, then every form-submit trigger;
 *   api       rows appended through the Sheets API (an automation tool): no trigger at all.
 *
 * Each installable trigger runs as the user who created it ("always runs under the account of the person who
 * created" it, apps-script/guides/triggers/installable), in the document, in AuthMode.FULL, without a user
 * interface. The user's triggers, simple ones included, share a daily runtime quota ("Triggers total runtime", the
 * quotas page): past it a trigger does not run. A simple trigger runs as the person who acted, at most 30 s, in
 * AuthMode.LIMITED where the add-on is enabled (used there by anyone) and in AuthMode.NONE where it is only installed
 * (workspace/add-ons/concepts/editor-auth-lifecycle; apps-script/guides/triggers: onOpen and onEdit of an Editor
 * add-on may run "in a no-authorization mode").
 */

import { SIMPLE_TRIGGER_LIMIT_MS } from '../constants';
import { rangeName } from '../model/a1';
import type { SheetModel } from '../model/spreadsheet';
import type { ExecutionResult, RunOptions, TriggerRecord } from '../types';

/** "Triggers total runtime 90 min / day" (consumer), "6 hr / day" (Workspace): apps-script/guides/services/quotas. */
export const TRIGGER_RUNTIME_DAILY_MS = { consumer: 90 * 60_000, workspace: 6 * 3600_000 } as const;
/** What Apps Script reports for a trigger past the quota (reported by users; the quotas page gives no text). */
export const TRIGGER_RUNTIME_EXCEEDED = 'Service using too much computer time for one day';

const DAY_MS = 24 * 3600 * 1000;

/** What the trigger host needs of the environment. */
export interface TriggerHost {
  readonly triggers: TriggerRecord[];
  now(): number;
  spreadsheet(id: string): {
    id: string;
    owner: string;
    sheetByName(name: string): SheetModel | undefined;
    activeSheet(): SheetModel;
  };
  enter(spreadsheetId: string, a1: string, values: unknown[][], sheetName?: string): void;
  execute(fn: string, args: unknown[], options: RunOptions): Promise<ExecutionResult>;
  /** Whether anyone used the add-on in the document (an execution in AuthMode.FULL there). */
  addonEnabled(spreadsheetId: string): boolean;
}

/** One trigger the quota refused: it did not run. */
export interface RefusedTrigger {
  triggerId: string;
  user: string;
  message: string;
  at: number;
}

/** What a person's action fired: the simple trigger's execution (if any) and the installable triggers'. */
export interface Fired {
  simple?: ExecutionResult;
  installable: ExecutionResult[];
  /** Installable triggers the daily runtime quota kept from running. */
  refused: RefusedTrigger[];
}

export class InstallableTriggers {
  /** Triggers the daily runtime quota kept from running, in order. */
  readonly refused: RefusedTrigger[] = [];
  private readonly runtime = new Map<string, { since: number; usedMs: number }>();

  constructor(
    private readonly host: TriggerHost,
    private readonly dailyRuntimeMs: number,
  ) {}

  /** Runtime counted today for `user`'s triggers (ms of wall time). */
  runtimeToday(user: string): number {
    const usage = this.runtime.get(user);
    return usage && this.host.now() - usage.since < DAY_MS ? usage.usedMs : 0;
  }

  /** Runs every installable trigger of `eventType` of the document, each as its creator, one after the other. */
  async fire(spreadsheetId: string, eventType: string, event: Record<string, unknown>): Promise<Fired> {
    const fired: Fired = { installable: [], refused: [] };
    const matching = this.host.triggers.filter(
      (t) => t.spreadsheetId === spreadsheetId && t.eventType === eventType,
    );
    for (const trigger of matching) {
      if (!this.host.triggers.includes(trigger)) continue; // deleted by an earlier one
      if (this.runtimeToday(trigger.user) >= this.dailyRuntimeMs) {
        const refusal = {
          triggerId: trigger.id,
          user: trigger.user,
          message: TRIGGER_RUNTIME_EXCEEDED,
          at: this.host.now(),
        };
        this.refused.push(refusal);
        fired.refused.push(refusal);
        continue;
      }
      const result = await this.host.execute(trigger.handler, [], {
        user: trigger.user,
        spreadsheetId,
        authMode: 'FULL',
        ui: false,
        event: { ...event, triggerUid: trigger.id },
      });
      this.count(trigger.user, result.durationMs);
      fired.installable.push(result);
    }
    return fired;
  }

  private count(user: string, ms: number): void {
    const now = this.host.now();
    let usage = this.runtime.get(user);
    if (!usage || now - usage.since >= DAY_MS) {
      usage = { since: now, usedMs: 0 };
      this.runtime.set(user, usage);
    }
    usage.usedMs += ms;
  }

  /**
   * A simple trigger (`onOpen`, `onEdit`) as `user`: refused past the daily runtime quota, ended at 30 s, its runtime
   * counted; in AuthMode.NONE unless the add-on is enabled in the document (or `authMode` says).
   */
  async simple(
    fn: 'onOpen' | 'onEdit',
    spreadsheetId: string,
    user: string,
    event: Record<string, unknown>,
    authMode?: 'LIMITED' | 'NONE',
  ): Promise<ExecutionResult> {
    if (this.runtimeToday(user) >= this.dailyRuntimeMs) {
      this.refused.push({ triggerId: fn, user, message: TRIGGER_RUNTIME_EXCEEDED, at: this.host.now() });
      return {
        id: -1,
        fn,
        user,
        ok: false,
        timedOut: false,
        durationMs: 0,
        counts: {},
        error: { name: 'Exception', message: TRIGGER_RUNTIME_EXCEEDED },
      };
    }
    const result = await this.host.execute(fn, [], {
      user,
      spreadsheetId,
      authMode: authMode ?? (this.host.addonEnabled(spreadsheetId) ? 'LIMITED' : 'NONE'),
      event,
      timeLimitMs: SIMPLE_TRIGGER_LIMIT_MS,
    });
    this.count(user, result.durationMs);
    return result;
  }

  /** A person opens the spreadsheet: the simple onOpen as them, then the installable open triggers. */
  async open(spreadsheetId: string, user: string, readOnly: boolean): Promise<Fired> {
    const simple = await this.simple('onOpen', spreadsheetId, user, { user });
    // Installable triggers "don't run if a file is opened in read-only (view or comment) mode"
    // (apps-script/guides/triggers/installable, Restrictions).
    const fired = readOnly
      ? { installable: [], refused: [] }
      : await this.fire(spreadsheetId, 'ON_OPEN', { user });
    return { ...fired, simple };
  }

  /**
   * A Google Form's response: its values appended as a new row of the response sheet (the first empty row), then
   * the form-submit triggers with `range`, `values` (as text) and `namedValues` (by the header row's titles).
   */
  async submitForm(
    spreadsheetId: string,
    answers: unknown[],
    sheetName?: string,
  ): Promise<Fired & { row: number }> {
    const ss = this.host.spreadsheet(spreadsheetId);
    const sheet = (sheetName ? ss.sheetByName(sheetName) : undefined) ?? ss.activeSheet();
    const row = appendRow(this.host, spreadsheetId, sheet, answers);
    const values = answers.map((value) => String(value ?? ''));
    const namedValues: Record<string, string[]> = {};
    answers.forEach((value, index) => {
      const title = sheet.get(1, index + 1)?.value;
      if (title !== undefined && title !== '') namedValues[String(title)] = [String(value ?? '')];
    });
    const fired = await this.fire(spreadsheetId, 'ON_FORM_SUBMIT', {
      rangeD: {
        ss: spreadsheetId,
        sheet: sheet.id,
        row,
        col: 1,
        numRows: 1,
        numCols: Math.max(1, answers.length),
      },
      values,
      namedValues,
    });
    return { ...fired, row };
  }
}

/** Writes `values` on the first row after the sheet's last row with data, growing the sheet when it is full. */
export function appendRow(
  host: Pick<TriggerHost, 'enter'>,
  spreadsheetId: string,
  sheet: SheetModel,
  values: unknown[],
): number {
  const row = sheet.lastRow() + 1;
  if (row > sheet.maxRows) sheet.insertRows(sheet.maxRows + 1, 1, []);
  const width = Math.max(1, values.length);
  host.enter(spreadsheetId, rangeName(row, 1, 1, width), [values.length ? values : ['']], sheet.name);
  return row;
}
