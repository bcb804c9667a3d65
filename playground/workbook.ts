/**
 * The playground's spreadsheet: one document of the Apps Script emulator (emulator/) running the built add-on
 * (dist/Code.js) as its signed-in user, who owns the document and has the sandbox's demo key saved.
 *
 * - opening the page runs the bundle's onOpen (the menu comes from it); formulas keep the values they have, as in
 *   Sheets, where a custom function runs again only when its formula or an input changes;
 * - a typed cell goes in as a person types it (`=` starts a formula); custom-function formulas that are typed, or
 *   whose inputs change, are evaluated by env.recalculate: one CUSTOM_FUNCTION execution each, 30 s limit, the
 *   owner's user properties; array results spill; a formula whose evaluation a stop cut short (its cell saved as
 *   Loading...) is evaluated once when the playground starts again;
 * - menu items run through env.run as the user; sidebars and dialogs are served by the sidebar host;
 * - save() captures the whole spreadsheet (every sheet, hidden or not, and the selection), the properties, the
 *   caches, the installable triggers and an open sidebar; openWorkbook() with it restores them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CacheStore,
  type Cell,
  customFunctionNames,
  type DialogAnswer,
  type DialogQuestion,
  displayValue,
  Environment,
  LOADING,
  MAX_CELL_CHARS,
  parseFormulaCall,
  type TriggerRecord,
} from '../emulator';
import {
  SheetModel,
  SheetsError,
  type SpreadsheetModel,
  type SpreadsheetSnapshot,
} from '../emulator/model/spreadsheet';
import { type Job, progressOf } from '../src/bulk/job';
import { API_KEY_PROPERTY, JOB_PROPERTY, RUNNER_ID_PROPERTY } from '../src/core/propertyNames';
import { describeState, fractionText } from '../src/sidebar/progress';
import { evaluatePlain, type Operand, parsePlainFormula } from './formula';
import { errorMessage, HttpError } from './http';
import {
  a1,
  type CellEdit,
  type CellView,
  type DialogView,
  type MenuItemView,
  type MenuView,
  type QuestionAnswer,
  type QuestionView,
  type RangeView,
  type RunView,
  type SheetView,
  type SidebarView,
  type ToastView,
} from './protocol';
import { SAMPLE_SHEET_NAME, sampleColumn } from './sample';
import { DEMO_KEY } from './service';
import { type SidebarHost, startSidebarHost } from './sidebar';

export { API_KEY_PROPERTY, JOB_PROPERTY };

export const DEMO_USER = 'demo@example.com';
export const SPREADSHEET_ID = 'playground-sheet';
const SPREADSHEET_NAME = 'Leads to enrich';
/** Sheets names an add-on's menu after the add-on. */
const ADDON_MENU_TITLE = 'Profile Email Finder';
/** Short slices: the sidebar shows progress after each, and Ctrl-C waits for at most one. */
// The sandbox's network is network.com (sandbox/profiles.ts): its profile URLs are the ones looked up.
const PLAYGROUND_SCRIPT_PROPERTIES: Record<string, string> = {
  ENRICH_STEP_BUDGET_MS: '5000',
  NETWORK_HOSTS: 'network.com',
};
const TOASTS_SHOWN = 20;
/** The buttons of each ButtonSet (apps-script/reference/base/button-set), as the page shows them. */
const BUTTON_SETS: Record<string, string[]> = {
  OK: ['OK'],
  OK_CANCEL: ['OK', 'CANCEL'],
  YES_NO: ['YES', 'NO'],
  YES_NO_CANCEL: ['YES', 'NO', 'CANCEL'],
};
const MIN_ROWS = 1000;
const MIN_COLUMNS = 26;
/** Sheets' limit: "up to 10 million cells" a spreadsheet (https://support.google.com/drive/answer/37603). */
export const MAX_SHEET_CELLS = 10_000_000;
const CELL_LIMIT_MESSAGE = `This action would increase the number of cells in the workbook above the limit of ${MAX_SHEET_CELLS} cells.`;
/** Rows inserted or deleted at once from the page. */
const MAX_ROWS_AT_ONCE = 10_000;

/** [key, value, expiresAt (ms)] */
type SavedCacheEntry = [string, string, number];

/**
 * What the playground keeps of its spreadsheet across restarts: the emulator's whole model of it (every sheet,
 * hidden or not, with values, formulas, formats, notes and sheet ids), what the emulator holds beside it for the add-on
 * (properties, caches, the installable triggers), and the sidebar left open.
 */
export interface SavedWorkbook {
  spreadsheet: SpreadsheetSnapshot;
  documentProperties: Record<string, string>;
  /** The demo user's. */
  userProperties: Record<string, string>;
  documentCache: SavedCacheEntry[];
  userCache: SavedCacheEntry[];
  scriptCache: SavedCacheEntry[];
  triggers: TriggerRecord[];
  /** The sidebar left open, shown again after a restart (it drives a run). */
  sidebar: { html: string; title: string } | null;
}

export interface Workbook {
  readonly user: string;
  readonly owner: string;
  readonly env: Environment;
  readonly spreadsheetId: string;
  sheetView(): { version: string; sheet: SheetView };
  selection(): RangeView | null;
  menu(): MenuView | null;
  sidebar(): SidebarView;
  dialog(): DialogView | null;
  dialogHtml(serial: number): string | undefined;
  /** The oldest alert or prompt of the add-on waiting for the person. */
  question(): QuestionView | null;
  /** The person's answer to a question: the suspended script goes on with it. */
  answer(answer: QuestionAnswer): void;
  /** Calls of the sidebar's google.script.run under way. */
  sidebarCalls(): number;
  toasts(): ToastView[];
  busy(): string[];
  run(): RunView | null;
  open(): Promise<void>;
  /** Types the edits in; edits past the last row or column add rows or columns first, as a paste does in Sheets. */
  setCells(edits: CellEdit[]): Promise<void>;
  setSelection(range: RangeView): Promise<void>;
  /** Data › Sort range: the rows of the range ordered by one of its columns; only the range's cells move. */
  sortRange(range: RangeView, column: number, ascending: boolean): void;
  /** Shows another visible sheet (its tab clicked); only the first sheet can be edited. */
  showSheet(id: number): void;
  /** Insert › Rows: `count` empty rows before row `before` (formulas' references follow). */
  insertRows(before: number, count: number): void;
  /** Edit › Delete rows. */
  deleteRows(start: number, count: number): void;
  /** Insert › A Google Form response: a new row with a new profile URL in column A, then the form-submit triggers. */
  submitFormResponse(): Promise<void>;
  /** Insert › Rows from an automation tool: `count` new rows through the Sheets API, which fires no trigger. */
  appendAsAutomation(count: number): number[];
  /**
   * Saves the sandbox's demo key as the user's key again, through the add-on's own saveApiKey; an open sidebar is
   * loaded again, so that it shows the key now saved.
   */
  restoreDemoKey(): Promise<void>;
  runMenu(fn: string): Promise<unknown>;
  closeSidebar(): void;
  closeDialog(): void;
  /** Resolves when no menu function or recalculation started by the page is under way. */
  idle(): Promise<void>;
  save(): Promise<SavedWorkbook>;
  close(): Promise<void>;
}

function saveCache(cache: CacheStore, now: number): SavedCacheEntry[] {
  return [...cache.dump(now)].map(([key, entry]) => [key, entry.value, entry.expiresAt]);
}

function restoreCache(cache: CacheStore, entries: SavedCacheEntry[] | undefined, now: number): void {
  for (const [key, value, expiresAt] of entries ?? []) {
    if (typeof key === 'string' && typeof value === 'string' && expiresAt > now)
      cache.entries.set(key, { value, expiresAt });
  }
}

export function isSavedWorkbook(saved: unknown): saved is SavedWorkbook {
  const s = saved as Partial<SavedWorkbook> | undefined;
  return (
    Array.isArray(s?.spreadsheet?.sheets) &&
    s.spreadsheet.sheets.every((sheet) => Array.isArray(sheet?.cells)) &&
    typeof s.documentProperties === 'object' &&
    typeof s.userProperties === 'object'
  );
}

export async function openWorkbook(options: {
  distDir: string;
  baseUrl: string;
  saved?: SavedWorkbook;
  scriptProperties: Record<string, string>;
  log: (line: string) => void;
}): Promise<Workbook> {
  const { log, saved } = options;
  const env = new Environment({
    distDir: options.distDir,
    maxConcurrent: 8,
    scriptProperties: {
      ...PLAYGROUND_SCRIPT_PROPERTIES,
      ...options.scriptProperties,
      API_BASE_URL: options.baseUrl,
    },
  });
  const customNames = new Set(
    customFunctionNames(readFileSync(join(options.distDir, 'Code.js'), 'utf8')).map((name) =>
      name.toUpperCase(),
    ),
  );

  const now = env.now();
  let ss: SpreadsheetModel;
  if (saved) {
    ss = env.restoreSpreadsheet({ ...saved.spreadsheet, id: SPREADSHEET_ID, owner: DEMO_USER });
    env.documentProperties(ss.id).set(saved.documentProperties);
    env.userProperties(DEMO_USER).set(saved.userProperties);
    restoreCache(env.documentCache(ss.id), saved.documentCache, now);
    restoreCache(env.userCache(DEMO_USER), saved.userCache, now);
    restoreCache(env.scriptCache, saved.scriptCache, now);
    env.restoreTriggers(saved.triggers.filter((trigger) => trigger.spreadsheetId === ss.id));
  } else {
    ss = env.createSpreadsheet({
      id: SPREADSHEET_ID,
      name: SPREADSHEET_NAME,
      owner: DEMO_USER,
      sheetName: SAMPLE_SHEET_NAME,
      rows: MIN_ROWS,
      cols: MIN_COLUMNS,
      data: sampleColumn(),
    });
    // The demo user has saved the sandbox's demo key, so the add-on works at once.
    env.userProperties(DEMO_USER).set({ [API_KEY_PROPERTY]: DEMO_KEY });
    env.select(ss.id, a1({ r1: 1, c1: 1, r2: sampleColumn().length, c2: 1 }));
  }
  /** The person's sheet, the one the page edits: the first. */
  const sheet: SheetModel = ss.sheets[0];

  // ------------------------------------------------------------------ sidebar, dialogs, toasts

  // Serials grow across restarts, so a page open before a restart notices new sidebars and toasts.
  const serialBase = Date.now();
  let nextSerial = serialBase;
  let sidebarsSeen = 0;
  let dialogsSeen = 0;
  let openSidebar: { serial: number; html: string; title: string } | null = saved?.sidebar
    ? { serial: nextSerial++, ...saved.sidebar }
    : null;
  let openDialog: (DialogView & { html: string }) | null = null;

  const mine = (output: { spreadsheetId?: string; user: string }) =>
    output.spreadsheetId === ss.id && output.user === DEMO_USER;

  /** Picks up the sidebars and dialogs the bundle showed since the last look. */
  function syncOutputs(): void {
    const sidebars = env.ui.sidebars;
    for (; sidebarsSeen < sidebars.length; sidebarsSeen++) {
      const output = sidebars[sidebarsSeen];
      if (mine(output)) openSidebar = { serial: nextSerial++, html: output.html, title: output.title };
    }
    const dialogs = env.ui.dialogs;
    for (; dialogsSeen < dialogs.length; dialogsSeen++) {
      const output = dialogs[dialogsSeen];
      if (!mine(output)) continue;
      const serial = nextSerial++;
      openDialog = {
        serial,
        title: output.title,
        url: `/dialog/${serial}`,
        width: output.width ?? 400,
        height: output.height ?? 300,
        html: output.html,
      };
    }
  }

  // Ui.alert and Ui.prompt: shown in the page, the script suspended until the person answers (or the playground
  // stops: then as if the dialog's close button was pressed).
  const questions: Array<{ view: QuestionView; resolve: (answer: DialogAnswer) => void }> = [];
  env.ui.person = (question: DialogQuestion) =>
    new Promise<DialogAnswer>((resolve) => {
      if (closed || !mine({ user: question.user, spreadsheetId: question.spreadsheetId })) {
        resolve({ button: 'CLOSE' });
        return;
      }
      const view: QuestionView = {
        serial: nextSerial++,
        kind: question.kind,
        title: question.title ?? '',
        prompt: question.prompt,
        buttons: BUTTON_SETS[question.buttons] ?? ['OK'],
      };
      questions.push({ view, resolve });
    });

  function answerQuestion({ serial, button, text }: QuestionAnswer): void {
    const at = questions.findIndex((waiting) => waiting.view.serial === serial);
    if (at < 0) throw new HttpError(404, 'This question was already answered.');
    const { view, resolve } = questions[at];
    if (button !== 'CLOSE' && !view.buttons.includes(button))
      throw new HttpError(400, `button: one of ${[...view.buttons, 'CLOSE'].join(', ')}`);
    questions.splice(at, 1);
    resolve(view.kind === 'prompt' ? { button, text: text ?? '' } : { button });
  }

  const busyRuns = new Map<number, string>();
  let nextBusy = 1;
  const pending = new Map<string, number>();
  const underWay = new Set<Promise<unknown>>();
  let closed = false;

  function track<T>(promise: Promise<T>): Promise<T> {
    underWay.add(promise);
    promise.finally(() => underWay.delete(promise)).catch(() => undefined);
    return promise;
  }

  /** Installable triggers a person's action fired (the watch's), shown as busy while they run. */
  function fireTriggers(label: string, work: () => Promise<unknown>): Promise<void> {
    const id = nextBusy++;
    busyRuns.set(id, label);
    return track(
      work()
        .then(
          () => undefined,
          (error: unknown) => log(`${label} failed: ${errorMessage(error)}`),
        )
        .finally(() => {
          busyRuns.delete(id);
          syncOutputs();
        }),
    );
  }

  let newLeads = 0;
  /** A fictional profile URL the sandbox answers (sandbox/profiles.ts: the slug decides), new each time. */
  function newLeadUrl(): string {
    newLeads++;
    return `https://www.network.com/in/new-lead-${Date.now().toString(36)}-${newLeads}`;
  }

  async function runAsUser(fn: string, args: unknown[], fromPage = false): Promise<unknown> {
    if (closed) throw new Error('The playground is stopping.');
    try {
      const options = { user: DEMO_USER, spreadsheetId: ss.id };
      return await (fromPage ? env.runFromPage(fn, args, options) : env.run(fn, args, options));
    } finally {
      syncOutputs();
    }
  }

  let sidebarHost: SidebarHost;
  try {
    sidebarHost = await startSidebarHost({
      html: (serial) => (openSidebar?.serial === serial ? openSidebar.html : undefined),
      run: (fn, args) => runAsUser(fn, args, true),
    });
  } catch (error) {
    await env.close();
    throw error;
  }

  // ------------------------------------------------------------------ formulas

  const key = (r: number, c: number) => `${r},${c}`;

  function isCustom(formula: string | undefined): boolean {
    const call = formula ? parseFormulaCall(formula) : undefined;
    return !!call && customNames.has(call.name);
  }

  /** Evaluates these formula cells in the background (each a custom-function execution). */
  function recalculate(cells: Array<{ r: number; c: number }>): void {
    if (cells.length === 0 || closed) return;
    for (const { r, c } of cells) pending.set(key(r, c), (pending.get(key(r, c)) ?? 0) + 1);
    const work = env
      .recalculate(ss.id, { cells: cells.map(({ r, c }) => ({ a1: a1({ r1: r, c1: c, r2: r, c2: c }) })) })
      .then(
        (report) => {
          for (const result of report.results) {
            if (result.timedOut) log(`A formula ran out of time (${result.durationMs} ms).`);
          }
        },
        (error: unknown) => log(`Recalculation failed: ${errorMessage(error)}`),
      )
      .finally(() => {
        for (const { r, c } of cells) {
          const left = (pending.get(key(r, c)) ?? 1) - 1;
          if (left <= 0) pending.delete(key(r, c));
          else pending.set(key(r, c), left);
        }
      });
    void track(work);
  }

  function customFormulaCells(): Array<{ r: number; c: number; formula: string; cell: Cell }> {
    return sheet
      .formulaCells()
      .filter(({ cell }) => isCustom(cell.formula))
      .map(({ row, col, cell }) => ({ r: row, c: col, formula: cell.formula ?? '', cell }));
  }

  /** The formulas to evaluate after edits: those typed, those reading an edited cell, those spilling over one. */
  function affectedFormulas(edits: CellEdit[]): Array<{ r: number; c: number }> {
    const inside = (box: { row: number; col: number; numRows: number; numCols: number }, e: CellEdit) =>
      e.r >= box.row && e.r < box.row + box.numRows && e.c >= box.col && e.c < box.col + box.numCols;
    const edited = new Set(edits.map((e) => key(e.r, e.c)));
    return customFormulaCells()
      .filter(({ r, c, formula, cell }) => {
        if (edited.has(key(r, c))) return true;
        if (
          cell.spill &&
          edits.some((e) =>
            inside({ row: r, col: c, numRows: cell.spill!.rows, numCols: cell.spill!.cols }, e),
          )
        )
          return true;
        const call = parseFormulaCall(formula);
        return (call?.args ?? []).some((arg) => {
          if (!('ref' in arg)) return false;
          try {
            const { sheet: target, box } = ss.resolve(arg.ref, sheet);
            return target === sheet && edits.some((e) => inside(box, e));
          } catch {
            return false;
          }
        });
      })
      .map(({ r, c }) => ({ r, c }));
  }

  /**
   * Evaluates the plain arithmetic formulas (`=1+1`, `=A2*3`) and stores their values in the cells, so that the
   * add-on reads them as it would in Sheets. Called after every change from the page and before every view (the
   * add-on's writes may have changed their inputs).
   */
  function recalculatePlain(): void {
    const plain = new Map<
      string,
      { r: number; c: number; cell: Cell; tree: NonNullable<ReturnType<typeof parsePlainFormula>> }
    >();
    for (const { row, col, cell } of sheet.formulaCells()) {
      if (isCustom(cell.formula)) continue;
      const tree = parsePlainFormula(cell.formula ?? '');
      if (tree) plain.set(key(row, col), { r: row, c: col, cell, tree });
    }
    if (plain.size === 0) return;
    const done = new Map<string, Operand>();
    const visiting = new Set<string>();
    const read = (r: number, c: number): Operand => {
      const at = key(r, c);
      const entry = plain.get(at);
      if (!entry) {
        const cell = sheet.get(r, c);
        if (cell?.error !== undefined) return { error: String(cell.value), message: cell.error };
        return cell?.value ?? '';
      }
      const known = done.get(at);
      if (known !== undefined) return known;
      if (visiting.has(at)) {
        return {
          error: '#REF!',
          message:
            'Circular dependency detected. To resolve with iterative calculation, see File > Settings.',
        };
      }
      visiting.add(at);
      const result = evaluatePlain(entry.tree, read);
      visiting.delete(at);
      done.set(at, result);
      return result;
    };
    for (const entry of plain.values()) {
      const result = read(entry.r, entry.c);
      if (typeof result === 'object' && !(result instanceof Date)) {
        entry.cell.value = result.error;
        entry.cell.error = result.message;
      } else {
        entry.cell.value = result;
        entry.cell.error = undefined;
      }
    }
  }

  function formulaTexts(): Map<Cell, string> {
    return new Map(sheet.formulaCells().map(({ cell }) => [cell, cell.formula ?? '']));
  }

  /** After rows moved: the custom formulas whose references changed are evaluated again. */
  function afterRowsMoved(before: Map<Cell, string>): void {
    recalculate(
      customFormulaCells()
        .filter(({ cell, formula }) => before.get(cell) !== formula)
        .map(({ r, c }) => ({ r, c })),
    );
    recalculatePlain();
  }

  function growTo(rows: number, cols: number): void {
    if (rows <= sheet.maxRows && cols <= sheet.maxCols) return;
    if (Math.max(rows, sheet.maxRows) * Math.max(cols, sheet.maxCols) > MAX_SHEET_CELLS) {
      throw new HttpError(400, CELL_LIMIT_MESSAGE);
    }
    if (rows > sheet.maxRows) sheet.insertRows(sheet.maxRows + 1, rows - sheet.maxRows, ss.sheets);
    if (cols > sheet.maxCols) sheet.insertColumns(sheet.maxCols + 1, cols - sheet.maxCols);
  }

  function wholeRows(first: number, count: number, what: string): void {
    if (!Number.isInteger(count) || count < 1 || count > MAX_ROWS_AT_ONCE) {
      throw new HttpError(400, `${what}: from 1 to ${MAX_ROWS_AT_ONCE} rows at once.`);
    }
    if (!Number.isInteger(first) || first < 1) throw new HttpError(400, `${what}: rows start at 1.`);
  }

  // ------------------------------------------------------------------ the views

  let sheetText = '';
  let sheetVersion = 0;
  const versionPrefix = serialBase.toString(36);

  /** The sheets hidden (Sheet.hideSheet, as the add-on's own): no tab for them. */
  const visibleSheets = () => ss.sheets.filter((candidate) => !candidate.hidden);
  /** The sheet the page shows: the first one, or another visible one read-only (an export opened). */
  let shownId = sheet.id;
  const shownSheet = () => visibleSheets().find((candidate) => candidate.id === shownId) ?? sheet;
  function editable(): void {
    if (shownSheet() !== sheet)
      throw new HttpError(
        409,
        `The playground edits the sheet "${sheet.name}" only: open its tab to edit it.`,
      );
  }

  function cellView(r: number, c: number, cell: Cell, formulasHere = true): CellView | undefined {
    const formula = cell.formula;
    if (formula === undefined && cell.value === '') return undefined;
    const view: CellView = { r, c, v: displayValue(cell, env.timeZone) };
    if (formula !== undefined) {
      view.f = formula;
      if (!isCustom(formula) && !parsePlainFormula(formula)) {
        // The add-on's custom functions and plain arithmetic are evaluated here; other formulas stay as typed.
        view.v = formula;
        view.note = 'The playground evaluates =FINDEMAIL(…) and plain arithmetic (=1+1, =A2*3) only.';
        return view;
      }
    }
    if (cell.error !== undefined) {
      view.k = 'error';
      view.note = cell.error;
    } else if (typeof cell.value === 'number') view.k = 'num';
    else if (typeof cell.value === 'boolean') view.k = 'bool';
    if (formulasHere && formula !== undefined && pending.has(key(r, c))) {
      view.k = 'loading';
      if (view.v === '') view.v = 'Loading…';
    }
    if (cell.note !== undefined && view.note === undefined) view.note = cell.note;
    return view;
  }

  function sheetView(): { version: string; sheet: SheetView } {
    recalculatePlain();
    const shown = shownSheet();
    const cells: CellView[] = [];
    for (const { row, col, cell } of shown.allCells()) {
      const view = cellView(row, col, cell, shown === sheet);
      if (view) cells.push(view);
    }
    const tabs = visibleSheets().map(({ id, name }) => ({ id, name, shown: id === shown.id }));
    const view: SheetView = {
      name: shown.name,
      rows: shown.maxRows,
      cols: shown.maxCols,
      cells,
      tabs,
      readOnly: shown !== sheet,
    };
    const text = JSON.stringify(view);
    if (text !== sheetText) {
      sheetText = text;
      sheetVersion++;
    }
    return { version: `${versionPrefix}.${sheetVersion}`, sheet: view };
  }

  function menu(): MenuView | null {
    const built = [...env.ui.menus].reverse().find((m) => m.addon && m.spreadsheetId === ss.id);
    if (!built) return null;
    const items: MenuItemView[] = [];
    for (const raw of built.items as Array<Record<string, unknown>>) {
      if (raw.separator) items.push({ label: '', separator: true });
      else if (typeof raw.functionName === 'string')
        items.push({ label: String(raw.caption ?? ''), fn: raw.functionName });
    }
    return { title: built.title ?? ADDON_MENU_TITLE, items };
  }

  /** The stored run as the user's sidebar would show it on opening (src/bulk/job.ts progressOf, the same words). */
  function run(): RunView | null {
    const raw = env.documentProperties(ss.id).get(JOB_PROPERTY);
    if (!raw) return null;
    try {
      const job = JSON.parse(raw) as Job;
      const runnerId = env.userProperties(DEMO_USER).get(RUNNER_ID_PROPERTY) ?? null;
      const progress = progressOf(job, { runnerId, now: env.now() });
      return {
        state: progress.state,
        processed: progress.processed,
        total: progress.total,
        message: progress.message,
        waiting: progress.waiting === true,
        label: describeState(progress).label,
        fraction: fractionText(progress),
      };
    } catch {
      return null;
    }
  }

  // A formula still computing when the playground last stopped was saved as Loading...: Sheets would have finished
  // it, so it is evaluated now, once. Every other formula keeps its value: a restart sends nothing.
  recalculate(
    customFormulaCells()
      .filter(({ cell }) => cell.value === LOADING)
      .map(({ r, c }) => ({ r, c })),
  );

  function selection(): RangeView | null {
    const active = ss.activeRange;
    if (!active || shownSheet() !== sheet) return null;
    return {
      r1: active.row,
      c1: active.col,
      r2: active.row + active.numRows - 1,
      c2: active.col + active.numCols - 1,
    };
  }

  return {
    user: DEMO_USER,
    owner: ss.owner,
    env,
    spreadsheetId: ss.id,
    sheetView,
    selection,
    menu,
    sidebar() {
      syncOutputs();
      return openSidebar
        ? {
            open: true,
            serial: openSidebar.serial,
            title: openSidebar.title,
            url: sidebarHost.url(openSidebar.serial),
          }
        : { open: false, serial: 0, title: '', url: '' };
    },
    dialog() {
      syncOutputs();
      if (!openDialog) return null;
      const { html: _html, ...view } = openDialog;
      return view;
    },
    dialogHtml: (serial) => (openDialog?.serial === serial ? openDialog.html : undefined),
    question: () => questions[0]?.view ?? null,
    answer: answerQuestion,
    sidebarCalls: () => sidebarHost.active,
    toasts() {
      const all = env.ui.toasts;
      const shown: ToastView[] = [];
      for (let index = Math.max(0, all.length - TOASTS_SHOWN); index < all.length; index++) {
        const toast = all[index];
        if (toast.spreadsheetId === ss.id)
          shown.push({ serial: serialBase + index, title: toast.title, message: toast.message });
      }
      return shown;
    },
    busy() {
      const list = [...busyRuns.values()];
      if (pending.size > 0) list.push(`Calculating ${pending.size} formula${pending.size === 1 ? '' : 's'}`);
      return list;
    },
    run,
    async open() {
      // Opening the document: the add-on's onOpen builds its menu. Formulas keep their values (nothing is sent).
      try {
        await env.run('onOpen', [], {
          user: DEMO_USER,
          spreadsheetId: ss.id,
          authMode: 'LIMITED',
          event: { user: DEMO_USER },
        });
      } catch (error) {
        log(`onOpen failed: ${errorMessage(error)}`);
      }
      syncOutputs();
      // The installable open triggers (a watch's), each as its creator: rows an automation tool added are found now.
      void fireTriggers('Open triggers (the watch)', () =>
        env.installableTriggers.fire(ss.id, 'ON_OPEN', { user: DEMO_USER }),
      );
    },
    async setCells(edits) {
      editable();
      let rows = 0;
      let cols = 0;
      for (const edit of edits) {
        if (edit.value.length > MAX_CELL_CHARS)
          throw new HttpError(400, `A cell holds at most ${MAX_CELL_CHARS} characters.`);
        rows = Math.max(rows, edit.r);
        cols = Math.max(cols, edit.c);
      }
      // Applied at once, also while an execution runs: its next service call sees them, as in Sheets.
      growTo(rows, cols);
      const single = edits.length === 1 ? edits[0] : undefined;
      const oldValue = single
        ? env.values(ss.id, a1({ r1: single.r, c1: single.c, r2: single.r, c2: single.c }), sheet.name)[0][0]
        : undefined;
      for (const edit of edits) {
        env.enter(ss.id, a1({ r1: edit.r, c1: edit.c, r2: edit.r, c2: edit.c }), [[edit.value]]);
      }
      recalculatePlain();
      recalculate(affectedFormulas(edits));
      // Sheets runs the simple onEdit after a person's typing or paste (never after a script's writes): once, with
      // the edited range, and the old value of a single cell.
      if (edits.length > 0) {
        const range = {
          r1: Math.min(...edits.map((edit) => edit.r)),
          c1: Math.min(...edits.map((edit) => edit.c)),
          r2: Math.max(...edits.map((edit) => edit.r)),
          c2: Math.max(...edits.map((edit) => edit.c)),
        };
        try {
          const fired = await env.fireEdit(ss.id, a1(range), {
            user: DEMO_USER,
            sheetName: sheet.name,
            oldValue,
          });
          if (!fired.ok) log(`onEdit failed: ${fired.error?.message ?? 'unknown error'}`);
        } catch (error) {
          log(`onEdit failed: ${errorMessage(error)}`);
        }
        syncOutputs();
      }
      // A person's edit fires the installable change triggers (a watch's), each as its creator.
      void fireTriggers('Change triggers (the watch)', () =>
        env.installableTriggers.fire(ss.id, 'ON_CHANGE', { user: DEMO_USER, changeType: 'EDIT' }),
      );
    },
    async submitFormResponse() {
      await fireTriggers('A form response (the watch)', () => env.submitForm(ss.id, [newLeadUrl()]));
    },
    appendAsAutomation(count) {
      if (!Number.isInteger(count) || count < 1 || count > 100) throw new HttpError(400, 'count: 1 to 100');
      const rows = Array.from({ length: count }, () => [newLeadUrl()]);
      if ((sheet.lastRow() + count) * sheet.maxCols > MAX_SHEET_CELLS)
        throw new HttpError(400, CELL_LIMIT_MESSAGE);
      return env.appendRowsThroughApi(ss.id, rows);
    },
    showSheet(id) {
      if (!visibleSheets().some((candidate) => candidate.id === id))
        throw new HttpError(404, 'No such sheet.');
      shownId = id;
    },
    sortRange(range, column, ascending) {
      editable();
      const r1 = Math.min(range.r1, range.r2);
      const r2 = Math.max(range.r1, range.r2);
      const c1 = Math.min(range.c1, range.c2);
      const c2 = Math.max(range.c1, range.c2);
      if (r2 > sheet.maxRows || c2 > sheet.maxCols)
        throw new HttpError(400, 'The range is outside the sheet.');
      if (column < c1 || column > c2) throw new HttpError(400, 'Sort by a column of the range.');
      const height = r2 - r1 + 1;
      const width = c2 - c1 + 1;
      if (height * width > MAX_SHEET_CELLS) throw new HttpError(400, 'The range is too large.');
      for (const { row, col, cell } of sheet.allCells()) {
        const inside = row >= r1 && row <= r2 && col >= c1 && col <= c2;
        if (inside && (cell.spilledFrom || (cell.spill && cell.spill.rows * cell.spill.cols > 1))) {
          throw new HttpError(
            400,
            'The playground cannot sort a range that holds an array formula or its results.',
          );
        }
      }
      // The emulator's Sheet.sort (Sheets' order, relative references moved with their rows) on a copy of the range.
      const copy = new SheetModel(-1, sheet.name, height, width);
      for (let r = r1; r <= r2; r++) {
        for (let c = c1; c <= c2; c++) {
          const cell = sheet.get(r, c);
          if (cell) Object.assign(copy.ensure(r - r1 + 1, c - c1 + 1), structuredClone(cell));
        }
      }
      copy.sort(column - c1 + 1, ascending, 1);
      for (let r = r1; r <= r2; r++) {
        for (let c = c1; c <= c2; c++) {
          const moved = copy.get(r - r1 + 1, c - c1 + 1);
          if (!moved && !sheet.get(r, c)) continue;
          const target = sheet.ensure(r, c);
          for (const name of Object.keys(target)) delete (target as unknown as Record<string, unknown>)[name];
          Object.assign(target, moved ? structuredClone(moved) : { value: '' });
        }
      }
      // Every custom formula of the range moved or changed: evaluated again, as Sheets does after a sort.
      const edits: CellEdit[] = [];
      for (let r = r1; r <= r2; r++) for (let c = c1; c <= c2; c++) edits.push({ r, c, value: '' });
      recalculatePlain();
      recalculate(affectedFormulas(edits));
    },
    insertRows(before, count) {
      editable();
      wholeRows(before, count, 'Insert rows');
      if (before > sheet.maxRows + 1) throw new HttpError(400, 'Insert rows: outside the sheet.');
      if ((sheet.maxRows + count) * sheet.maxCols > MAX_SHEET_CELLS)
        throw new HttpError(400, CELL_LIMIT_MESSAGE);
      const formulas = formulaTexts();
      sheet.insertRows(before, count, ss.sheets);
      afterRowsMoved(formulas);
    },
    deleteRows(start, count) {
      editable();
      wholeRows(start, count, 'Delete rows');
      const formulas = formulaTexts();
      try {
        sheet.deleteRows(start, count, ss.sheets);
      } catch (error) {
        if (error instanceof SheetsError) throw new HttpError(400, error.message);
        throw error;
      }
      afterRowsMoved(formulas);
    },
    async restoreDemoKey() {
      await runAsUser('saveApiKey', [DEMO_KEY]);
      // The open sidebar read the key when it loaded: loaded again (a new serial), it shows the restored key.
      if (openSidebar) openSidebar = { ...openSidebar, serial: nextSerial++ };
    },
    async setSelection(range) {
      // Another sheet is shown read-only: its selection stays in the page.
      if (shownSheet() !== sheet) return;
      const r1 = Math.min(range.r1, range.r2);
      const c1 = Math.min(range.c1, range.c2);
      const r2 = Math.min(Math.max(range.r1, range.r2), sheet.maxRows);
      const c2 = Math.min(Math.max(range.c1, range.c2), sheet.maxCols);
      if (r1 > sheet.maxRows || c1 > sheet.maxCols)
        throw new HttpError(400, 'The range is outside the sheet.');
      env.select(ss.id, a1({ r1, c1, r2, c2 }));
    },
    async runMenu(fn) {
      const item = menu()?.items.find((entry) => entry.fn === fn);
      if (!item) throw new Error(`${fn} is not an item of the add-on's menu.`);
      const id = nextBusy++;
      busyRuns.set(id, `Running “${item.label}”`);
      try {
        return await track(runAsUser(fn, []));
      } finally {
        busyRuns.delete(id);
      }
    },
    closeSidebar() {
      syncOutputs();
      openSidebar = null;
    },
    closeDialog() {
      syncOutputs();
      openDialog = null;
    },
    async idle() {
      for (let round = 0; round < 100 && underWay.size > 0; round++) await Promise.allSettled([...underWay]);
    },
    async save() {
      syncOutputs();
      const at = env.now();
      return {
        spreadsheet: ss.snapshot(),
        documentProperties: env.documentProperties(ss.id).all(),
        userProperties: env.userProperties(DEMO_USER).all(),
        documentCache: saveCache(env.documentCache(ss.id), at),
        userCache: saveCache(env.userCache(DEMO_USER), at),
        scriptCache: saveCache(env.scriptCache, at),
        triggers: env.triggers.filter((t) => t.spreadsheetId === ss.id),
        sidebar: openSidebar ? { html: openSidebar.html, title: openSidebar.title } : null,
      };
    },
    async close() {
      closed = true;
      // A script suspended on a question goes on as if its dialog was closed, so that the executions can end.
      for (const waiting of questions.splice(0)) waiting.resolve({ button: 'CLOSE' });
      await sidebarHost.close();
      // Waits for the executions under way (a run's slice ends within its budget), so their writes are saved.
      await env.close();
    },
  };
}
