/**
 * The playground page: the grid, the Extensions menu built from the bundle's onOpen, the add-on's sidebar in an
 * iframe, toasts and dialogs, and the sandbox panel. The server holds every state; the page polls it (fast while
 * something runs). Everything from the server is shown as text.
 */
import {
  a1,
  type CellEdit,
  columnLetter,
  countOf,
  type KeyAnswer,
  type MenuAnswer,
  type MenuView,
  type QuestionView,
  type RangeView,
  type RunView,
  type SandboxChange,
  type SandboxView,
  type SheetTab,
  type SidebarRunReport,
  type StateView,
  type ToastView,
} from '../protocol';
import { Grid } from './grid';

const FAST_POLL_MS = 300;
const SLOW_POLL_MS = 1500;
const REQUEST_TIMEOUT_MS = 60_000;
/**
 * A menu item's call lasts as long as its execution: up to Apps Script's 6 minutes, a question it asks (Refresh's
 * Yes or No) waiting for the person included.
 */
const MENU_TIMEOUT_MS = 7 * 60_000;
const TOAST_MS = 6000;

function $(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`No #${id}`);
  return element;
}

async function request<T>(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: controller.signal,
      cache: 'no-store',
    });
    const text = await response.text();
    if (!response.ok) throw new Error(text || `${response.status} ${response.statusText}`);
    return (text ? JSON.parse(text) : undefined) as T;
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Notices, busy line, toasts

function showNotice(text: string, tone: 'error' | 'info' = 'error'): void {
  $('notice-text').textContent = text;
  $('notice').className = `notice ${tone}`;
  $('notice').hidden = false;
}

$('notice-close').addEventListener('click', () => {
  $('notice').hidden = true;
});

const shownToasts = new Set<number>();
let toastsSeeded = false;

function renderToasts(toasts: ToastView[]): void {
  // Toasts from before this page load are history, not news.
  if (!toastsSeeded) {
    for (const toast of toasts) shownToasts.add(toast.serial);
    toastsSeeded = true;
    return;
  }
  for (const toast of toasts) {
    if (shownToasts.has(toast.serial)) continue;
    shownToasts.add(toast.serial);
    const box = document.createElement('div');
    box.className = 'toast';
    box.setAttribute('role', 'status');
    const title = document.createElement('div');
    title.className = 'toast-title';
    title.textContent = toast.title;
    const message = document.createElement('div');
    message.textContent = toast.message;
    box.append(title, message);
    $('toasts').append(box);
    setTimeout(() => box.remove(), TOAST_MS);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The grid and the formula bar

const formulaInput = $('formula-input') as HTMLInputElement;
let selectTimer: ReturnType<typeof setTimeout> | undefined;
let pendingSelection: RangeView | null = null;
/** Writes and selection changes go to the server in order. */
let queue: Promise<unknown> = Promise.resolve();

function enqueue<T>(work: () => Promise<T>): Promise<T> {
  const next = queue.then(work, work);
  queue = next.catch(() => undefined);
  return next;
}

/** Bumped by every selection made in the grid: a state read before it reached the server must not undo it. */
let selectSerial = 0;
/** Selections sent and not yet answered. */
let selectsInFlight = 0;

function sendSelection(): Promise<void> {
  if (selectTimer) clearTimeout(selectTimer);
  selectTimer = undefined;
  const range = pendingSelection;
  pendingSelection = null;
  if (!range) return queue.then(() => undefined);
  selectsInFlight++;
  return enqueue(() => request<void>('POST', '/api/select', range))
    .catch((error: unknown) => showNotice(`The selection could not be sent: ${String(error)}`))
    .finally(() => {
      selectsInFlight--;
    });
}

/**
 * The grid shows the selection the add-on sees (the server's active range): a server call may move it (Select the
 * first failed row), and the next menu action uses it. A selection of the grid's own still on its way wins.
 */
function syncSelection(server: RangeView | null, serialAtRead: number): void {
  if (!server || serialAtRead !== selectSerial || pendingSelection || grid.isEditing) return;
  const shown = grid.selection;
  if (shown.r1 === server.r1 && shown.c1 === server.c1 && shown.r2 === server.r2 && shown.c2 === server.c2)
    return;
  grid.setSelection(server, false, true);
  renderSelectionInfo();
  updateSheetMenus();
}

/** Writes under way: a state read before they land would show the old cells for a moment. */
let writes = 0;
let writeSerial = 0;

const WIDTHS_KEY = 'playground.columnWidths';
/**
 * Wide enough for the sample's URLs and the add-on's columns, and all five in view at 1,440 px with the sidebar and
 * the sandbox panel open; the user may drag the header edges.
 */
const DEFAULT_WIDTHS: Record<number, number> = { 1: 250, 2: 195, 3: 100, 4: 72, 5: 150 };

function savedWidths(): Record<number, number> {
  try {
    const saved = JSON.parse(localStorage.getItem(WIDTHS_KEY) ?? '{}') as Record<number, number>;
    return { ...DEFAULT_WIDTHS, ...saved };
  } catch {
    return DEFAULT_WIDTHS;
  }
}

const grid = new Grid(
  $('sheet-area'),
  {
    resized(widths) {
      try {
        localStorage.setItem(WIDTHS_KEY, JSON.stringify(widths));
      } catch {
        // Private mode: the widths last until the page reloads.
      }
    },
    commit(edits: CellEdit[]) {
      writes++;
      writeSerial++;
      void enqueue(() => request<void>('POST', '/api/cells', { edits }))
        .catch((error: unknown) => {
          showNotice(
            `The cells could not be saved: ${error instanceof Error ? error.message : String(error)}`,
          );
          // The grid showed the edit at once: the next state brings the sheet as stored, which undoes it.
          version = '';
        })
        .finally(() => {
          writes--;
          writeSerial++;
          void poll(true);
        });
    },
    select(range: RangeView) {
      selectSerial++;
      pendingSelection = range;
      if (selectTimer) clearTimeout(selectTimer);
      selectTimer = setTimeout(() => void sendSelection(), 120);
      renderSelectionInfo();
      updateSheetMenus();
    },
    refused(message: string) {
      showNotice(message);
    },
    activeChanged() {
      updateSheetMenus();
      const { r, c } = grid.activeCell;
      $('name-box').textContent = a1({ r1: r, c1: c, r2: r, c2: c });
      if (document.activeElement !== formulaInput) formulaInput.value = grid.rawContent(r, c);
      renderSelectionInfo();
    },
  },
  savedWidths(),
);

function renderSelectionInfo(): void {
  const sel = grid.selection;
  const rows = sel.r2 - sel.r1 + 1;
  const cols = sel.c2 - sel.c1 + 1;
  $('selection-info').textContent = rows * cols > 1 ? `${a1(sel)} · ${rows} × ${cols}` : '';
}

formulaInput.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') {
    event.preventDefault();
    grid.setActiveContent(formulaInput.value);
    grid.focusGrid();
  } else if (event.key === 'Escape') {
    event.preventDefault();
    const { r, c } = grid.activeCell;
    formulaInput.value = grid.rawContent(r, c);
    grid.focusGrid();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The Extensions menu

const menuButton = $('menu-extensions');
const menuPopup = $('menu-extensions-popup');
let menuSignature = '';

/** The menubar's menus: [button, popup]. */
const MENUS: Array<[HTMLElement, HTMLElement]> = [
  [menuButton, menuPopup],
  [$('menu-edit'), $('menu-edit-popup')],
  [$('menu-insert'), $('menu-insert-popup')],
  [$('menu-data'), $('menu-data-popup')],
];

function closeMenu(): void {
  for (const [button, popup] of MENUS) {
    popup.hidden = true;
    button.setAttribute('aria-expanded', 'false');
  }
  $('addon-entry').classList.remove('open');
}

for (const [button, popup] of MENUS) {
  button.addEventListener('click', (event) => {
    event.stopPropagation();
    const open = popup.hidden;
    closeMenu();
    popup.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    if (open && button === menuButton) $('addon-entry').classList.add('open');
  });
}
document.addEventListener('mousedown', (event) => {
  const target = event.target;
  if (
    !(target instanceof Node) ||
    !MENUS.some(([button, popup]) => popup.contains(target) || button === target)
  ) {
    closeMenu();
  }
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') closeMenu();
});

function renderMenu(menu: MenuView | null): void {
  const signature = JSON.stringify(menu);
  if (signature === menuSignature) return;
  menuSignature = signature;
  $('addon-title').textContent = menu?.title ?? 'Profile Email Finder';
  const list = $('addon-menu');
  list.replaceChildren();
  if (!menu || menu.items.length === 0) {
    const empty = document.createElement('div');
    empty.className = 'menu-entry disabled';
    empty.textContent = 'No menu: onOpen has not built one.';
    list.append(empty);
    return;
  }
  for (const item of menu.items) {
    if (item.separator) {
      const line = document.createElement('div');
      line.className = 'menu-separator';
      line.setAttribute('role', 'separator');
      list.append(line);
      continue;
    }
    const entry = document.createElement('button');
    entry.type = 'button';
    entry.className = 'menu-entry';
    entry.setAttribute('role', 'menuitem');
    entry.textContent = item.label;
    const fn = item.fn ?? '';
    entry.dataset.fn = fn;
    entry.addEventListener('click', (event) => {
      event.stopPropagation();
      closeMenu();
      void runMenu(fn, item.label);
    });
    list.append(entry);
  }
}

async function runMenu(fn: string, label: string): Promise<void> {
  if (grid.isEditing) grid.commitEdit(0, 0, true);
  await sendSelection();
  $('notice').hidden = true;
  setFastPolling(true);
  try {
    // The writes made before the click land first; the call itself is not in the write queue: edits made while it
    // runs go to the sheet at once, as in Sheets (the execution sees them at its next read).
    await queue;
    const answer = await request<MenuAnswer>('POST', '/api/menu', { fn }, MENU_TIMEOUT_MS);
    if (!answer.ok) showNotice(`${label}: ${answer.error ?? 'the function failed.'}`);
  } catch (error) {
    showNotice(`${label}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    void poll(true);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Edit › Delete rows, Insert › Rows, Data › Sort range: sent in order with the cell edits, also while a run goes on

function updateSheetMenus(): void {
  const sel = grid.selection;
  const rows = sel.r2 - sel.r1 + 1;
  $('delete-rows').textContent = rows === 1 ? `Delete row ${sel.r1}` : `Delete rows ${sel.r1} - ${sel.r2}`;
  const count = rows === 1 ? '1 row' : `${rows} rows`;
  $('insert-above').textContent = `Insert ${count} above`;
  $('insert-below').textContent = `Insert ${count} below`;
  const column = columnLetter(grid.activeCell.c);
  $('sort-asc').textContent = `Sort range by column ${column} (A to Z)`;
  $('sort-desc').textContent = `Sort range by column ${column} (Z to A)`;
}

function sheetAction(label: string, path: string, body: unknown): void {
  closeMenu();
  if (grid.isEditing) grid.commitEdit(0, 0, false);
  writes++;
  writeSerial++;
  void enqueue(() => request<void>('POST', path, body))
    .catch((error: unknown) =>
      showNotice(`${label}: ${error instanceof Error ? error.message : String(error)}`),
    )
    .finally(() => {
      writes--;
      writeSerial++;
      grid.focusGrid();
      void poll(true);
    });
}

$('delete-rows').addEventListener('click', () => {
  const sel = grid.selection;
  sheetAction('Delete rows', '/api/rows', { op: 'delete', at: sel.r1, count: sel.r2 - sel.r1 + 1 });
});
$('insert-above').addEventListener('click', () => {
  const sel = grid.selection;
  sheetAction('Insert rows', '/api/rows', { op: 'insert', at: sel.r1, count: sel.r2 - sel.r1 + 1 });
});
$('insert-below').addEventListener('click', () => {
  const sel = grid.selection;
  sheetAction('Insert rows', '/api/rows', { op: 'insert', at: sel.r2 + 1, count: sel.r2 - sel.r1 + 1 });
});
$('submit-form').addEventListener('click', () => sheetAction('Submit a form response', '/api/form', {}));
$('append-automation').addEventListener('click', () =>
  sheetAction('Append rows as an automation tool', '/api/append', { count: 5 }),
);
for (const [id, ascending] of [
  ['sort-asc', true],
  ['sort-desc', false],
] as const) {
  $(id).addEventListener('click', () => {
    sheetAction('Sort range', '/api/sort', { range: grid.selection, column: grid.activeCell.c, ascending });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Sidebar and dialog

let sidebarSerial = -1;
let dialogSerial = -1;

/**
 * The run as the open sidebar shows it (its frame posts its state and fraction as they change): the status line says
 * the same while the sidebar is open, so the two never disagree. Null while no sidebar has reported.
 */
let sidebarRun: { label: string; fraction: string } | null = null;
let lastState: StateView | null = null;

window.addEventListener('message', (event) => {
  const frame = $('sidebar-frame') as HTMLIFrameElement;
  const report = event.data as Partial<SidebarRunReport> | null;
  if (event.source !== frame.contentWindow || report?.source !== 'pef-sidebar-run') return;
  if (typeof report.label !== 'string' || typeof report.fraction !== 'string') return;
  const moved = sidebarRun?.label !== report.label || sidebarRun?.fraction !== report.fraction;
  sidebarRun = { label: report.label, fraction: report.fraction };
  renderStatusLine();
  // The sidebar shows the run further on: the sheet's cells it wrote are asked for now, not at the next slow look.
  if (moved) void poll(true);
});

/** A run in a few words: the sidebar's label, and its fraction when there is one. */
function runText(run: { label: string; fraction: string }): string {
  return run.fraction ? `${run.label} — ${run.fraction}` : run.label;
}

/**
 * The status line: what runs now (menu items, formulas) and the bulk run — as the open sidebar shows it, or, with no
 * sidebar open, as the stored run reads in the same words (the sidebar shows that much when it opens).
 */
function renderStatusLine(): void {
  const state = lastState;
  if (!state) return;
  const parts: string[] = [...state.busy];
  const run: RunView | null = state.run;
  const fromSidebar = state.sidebar.open && sidebarRun !== null && sidebarRun.fraction !== '';
  if (fromSidebar && sidebarRun) parts.push(runText(sidebarRun));
  else if (run && !state.sidebar.open) parts.push(runText(run));
  $('busy').textContent = parts.join(' · ');
}

function renderSidebar(state: StateView): void {
  const panel = $('sidebar-panel');
  const frame = $('sidebar-frame') as HTMLIFrameElement;
  if (!state.sidebar.open) {
    if (!panel.hidden) {
      panel.hidden = true;
      frame.removeAttribute('src');
    }
    sidebarRun = null;
    sidebarSerial = -1;
    return;
  }
  $('sidebar-title').textContent = state.sidebar.title;
  if (state.sidebar.serial !== sidebarSerial) {
    sidebarSerial = state.sidebar.serial;
    // A new sidebar page: nothing of the old one's run is shown until it reports.
    sidebarRun = null;
    // The sidebar's frame reports what it shows of the run to this page's origin (playground/sidebar.ts).
    frame.src = `${state.sidebar.url}?page=${encodeURIComponent(location.origin)}`;
  }
  panel.hidden = false;
}

$('sidebar-close').addEventListener('click', () => {
  void request('POST', '/api/sidebar/close', {}).then(() => poll(true));
  $('sidebar-panel').hidden = true;
  ($('sidebar-frame') as HTMLIFrameElement).removeAttribute('src');
  sidebarSerial = -1;
  sidebarRun = null;
});

function renderDialog(state: StateView): void {
  const backdrop = $('dialog');
  const frame = $('dialog-frame') as HTMLIFrameElement;
  if (!state.dialog) {
    backdrop.hidden = true;
    dialogSerial = -1;
    return;
  }
  if (state.dialog.serial !== dialogSerial) {
    dialogSerial = state.dialog.serial;
    $('dialog-title').textContent = state.dialog.title;
    frame.src = state.dialog.url;
    frame.style.width = `${Math.min(state.dialog.width, window.innerWidth - 80)}px`;
    frame.style.height = `${Math.min(state.dialog.height, window.innerHeight - 120)}px`;
  }
  backdrop.hidden = false;
}

$('dialog-close').addEventListener('click', () => {
  $('dialog').hidden = true;
  void request('POST', '/api/dialog/close', {}).then(() => poll(true));
});

// ---------------------------------------------------------------------------------------------------------------
// The add-on's questions (Ui.alert, Ui.prompt): its script waits for the person's answer

const BUTTON_LABELS: Record<string, string> = { OK: 'OK', CANCEL: 'Cancel', YES: 'Yes', NO: 'No' };
let questionSerial = -1;
let questionButtons: string[] = [];

function answerQuestion(button: string): void {
  if (questionSerial < 0) return;
  const serial = questionSerial;
  const input = $('question-input') as HTMLInputElement;
  const text = input.hidden ? undefined : input.value;
  questionSerial = -1;
  $('question').hidden = true;
  setFastPolling(true);
  request('POST', '/api/answer', { serial, button, text })
    .catch((error: unknown) =>
      showNotice(`The answer could not be sent: ${error instanceof Error ? error.message : String(error)}`),
    )
    .finally(() => {
      grid.focusGrid();
      void poll(true);
    });
}

function renderQuestion(question: QuestionView | null): void {
  if (!question) {
    $('question').hidden = true;
    questionSerial = -1;
    return;
  }
  if (question.serial === questionSerial) return;
  questionSerial = question.serial;
  questionButtons = question.buttons;
  closeMenu();
  $('question-title').textContent = question.title;
  $('question-text').textContent = question.prompt;
  const input = $('question-input') as HTMLInputElement;
  input.hidden = question.kind !== 'prompt';
  input.value = '';
  const buttons = question.buttons.map((name, index) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = BUTTON_LABELS[name] ?? name;
    button.dataset.button = name;
    if (index === 0) button.className = 'primary';
    button.addEventListener('click', () => answerQuestion(name));
    return button;
  });
  $('question-buttons').replaceChildren(...buttons);
  $('question').hidden = false;
  (input.hidden ? buttons[0] : input).focus();
}

$('question-close').addEventListener('click', () => answerQuestion('CLOSE'));
$('question').addEventListener('keydown', (event) => {
  if (event.key === 'Escape') {
    event.preventDefault();
    answerQuestion('CLOSE');
  } else if (event.key === 'Enter' && event.target === $('question-input')) {
    event.preventDefault();
    answerQuestion(questionButtons[0] ?? 'OK');
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The sandbox panel

const latency = $('latency') as HTMLInputElement;
const latencyP99 = $('latency-p99') as HTMLInputElement;
const error500 = $('error500') as HTMLInputElement;
const resets = $('resets') as HTMLInputElement;
const maxInFlight = $('max-in-flight') as HTMLInputElement;
const maxPerSecond = $('max-per-second') as HTMLInputElement;
let slidersTouched = 0;
/** The demo key, once the user asked to see it. */
let shownKey: string | null = null;

const percent = (value: number) => `${Math.round(value * 100)}%`;
const p99Text = (ms: number) => (ms > 0 ? `${ms} ms` : 'off');

function renderSliderOutputs(): void {
  $('latency-out').textContent = `${latency.value} ms`;
  $('latency-p99-out').textContent = p99Text(Number(latencyP99.value));
  $('latency-kind').textContent = Number(latencyP99.value) > 0 ? 'median' : 'fixed';
  $('error500-out').textContent = percent(Number(error500.value));
  $('resets-out').textContent = percent(Number(resets.value));
}

function renderSandbox(sandbox: SandboxView): void {
  $('org-name').textContent = sandbox.organization;
  $('org-key').textContent = shownKey ?? sandbox.maskedKey;
  $('credits').textContent = sandbox.credits.toLocaleString('en-US');
  $('credits').classList.toggle('low', sandbox.credits < 10);
  $('charged').textContent = sandbox.charged.toLocaleString('en-US');
  $('requests').textContent =
    sandbox.inFlight > 0
      ? `${countOf(sandbox.requests, 'request')} (${sandbox.inFlight} under way)`
      : countOf(sandbox.requests, 'request');
  // A slider being moved keeps its value until the server has it.
  if (Date.now() - slidersTouched > 1500) {
    latency.value = String(sandbox.latencyMs);
    latencyP99.value = String(sandbox.latencyP99Ms);
    error500.value = String(sandbox.error500Rate);
    resets.value = String(sandbox.resetRate);
    if (document.activeElement !== maxInFlight) maxInFlight.value = String(sandbox.maxInFlight);
    if (document.activeElement !== maxPerSecond) maxPerSecond.value = String(sandbox.maxPerSecond);
    // The server's values, not the slider's (which snaps to its step).
    $('latency-out').textContent = `${sandbox.latencyMs} ms`;
    $('latency-p99-out').textContent = p99Text(sandbox.latencyP99Ms);
    $('latency-kind').textContent = sandbox.latencyP99Ms > 0 ? 'median' : 'fixed';
    $('error500-out').textContent = percent(sandbox.error500Rate);
    $('resets-out').textContent = percent(sandbox.resetRate);
  }

  const body = $('ledger-body');
  const rows = sandbox.ledger.map((entry) => {
    const row = document.createElement('tr');
    row.dataset.n = String(entry.n);
    row.dataset.status = entry.status;
    // A key check (no profile, 400 = the key works, 401 = it does not) is free by design: not an error row.
    const status = entry.keyCheck
      ? entry.status === '400'
        ? 'key OK'
        : entry.status === '401'
          ? 'key rejected'
          : entry.status
      : entry.limited
        ? `${entry.status} (rate limit)`
        : entry.fault
          ? `${entry.status} (${entry.fault === 'reset' ? 'fault' : 'injected'})`
          : entry.status;
    const tone = entry.keyCheck
      ? 'check'
      : entry.status === '200'
        ? 'ok'
        : entry.status === '422' || entry.limited
          ? 'warn'
          : 'bad';
    const cells: Array<[string, string]> = [
      [String(entry.n), 'n'],
      [entry.keyCheck ? 'API key check' : entry.url.replace(/^https?:\/\/(www\.)?/i, ''), 'url'],
      [status, `status ${tone}`],
      [entry.charged ? '1 credit' : entry.keyCheck ? 'free' : '—', entry.charged ? 'charged' : 'free'],
    ];
    row.classList.toggle('key-check', entry.keyCheck === true);
    for (const [text, className] of cells) {
      const td = document.createElement('td');
      td.className = className;
      td.textContent = text;
      if (className === 'url') td.title = entry.url;
      row.append(td);
    }
    return row;
  });
  const first = body.firstElementChild as HTMLElement | null;
  if (first?.dataset.n !== rows[0]?.dataset.n || body.children.length !== rows.length)
    body.replaceChildren(...rows);
  $('ledger-empty').hidden = rows.length > 0;
}

async function changeSandbox(change: SandboxChange): Promise<void> {
  try {
    const sandbox = await request<SandboxView>('POST', '/api/sandbox', change);
    renderSandbox(sandbox);
  } catch (error) {
    showNotice(
      `The sandbox did not take the change: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

$('add-credits').addEventListener('click', () => void changeSandbox({ addCredits: 100 }));
$('set-credits-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = Number(($('set-credits') as HTMLInputElement).value);
  if (Number.isFinite(value) && value >= 0) void changeSandbox({ credits: Math.floor(value) });
});
for (const [slider, name] of [
  [latency, 'latencyMs'],
  [latencyP99, 'latencyP99Ms'],
  [error500, 'error500Rate'],
  [resets, 'resetRate'],
] as const) {
  slider.addEventListener('input', () => {
    slidersTouched = Date.now();
    renderSliderOutputs();
  });
  slider.addEventListener('change', () => {
    slidersTouched = Date.now();
    void changeSandbox({ [name]: Number(slider.value) });
  });
}

for (const [input, name] of [
  [maxInFlight, 'maxInFlight'],
  [maxPerSecond, 'maxPerSecond'],
] as const) {
  input.addEventListener('change', () => {
    const value = Number(input.value);
    if (Number.isInteger(value) && value >= 0) void changeSandbox({ [name]: value });
    else showNotice('A rate limit is a whole number of requests (0 for none).');
  });
}

$('key-show').addEventListener('click', async () => {
  const button = $('key-show');
  if (shownKey !== null) {
    shownKey = null;
    button.textContent = 'Show key';
    button.setAttribute('aria-pressed', 'false');
    void poll(true);
    return;
  }
  try {
    const answer = await request<KeyAnswer>('POST', '/api/sandbox/key', { action: 'show' });
    shownKey = answer.key ?? null;
    $('org-key').textContent = shownKey ?? '';
    button.textContent = 'Hide key';
    button.setAttribute('aria-pressed', 'true');
  } catch (error) {
    showNotice(`The key could not be shown: ${error instanceof Error ? error.message : String(error)}`);
  }
});

$('key-restore').addEventListener('click', async () => {
  try {
    await request<KeyAnswer>('POST', '/api/sandbox/key', { action: 'restore' });
    showNotice("The demo key is saved as the user's key again.", 'info');
    // An open sidebar is loaded again with it.
    void poll(true);
  } catch (error) {
    showNotice(`The key could not be restored: ${error instanceof Error ? error.message : String(error)}`);
  }
});

// Folding: below 1,200 px the panel starts folded so the grid keeps its width; the choice is remembered.
const FOLD_KEY = 'playground.sandboxFolded';
const FOLD_BELOW_PX = 1200;

function setFolded(folded: boolean): void {
  $('sandbox-panel').classList.toggle('folded', folded);
  const button = $('sandbox-fold');
  button.setAttribute('aria-expanded', String(!folded));
  button.textContent = folded ? '‹' : '›';
  button.title = folded ? 'Show the sandbox panel' : 'Fold the sandbox panel away';
}

function savedFold(): boolean {
  try {
    const saved = localStorage.getItem(FOLD_KEY);
    if (saved !== null) return saved === 'true';
  } catch {
    // Private mode: by the width.
  }
  return window.innerWidth < FOLD_BELOW_PX;
}

setFolded(savedFold());
$('sandbox-fold').addEventListener('click', () => {
  const folded = !$('sandbox-panel').classList.contains('folded');
  setFolded(folded);
  try {
    localStorage.setItem(FOLD_KEY, String(folded));
  } catch {
    // Private mode: until the page reloads.
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Polling

/** A tab per visible sheet: clicking one shows that sheet (the others than the first are shown read-only). */
function renderTabs(tabs: SheetTab[]): void {
  const list = $('sheet-tab-list');
  list.textContent = '';
  for (const tab of tabs) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'sheet-tab';
    button.setAttribute('role', 'tab');
    button.setAttribute('aria-selected', String(tab.shown));
    button.textContent = tab.name;
    button.addEventListener('click', () => {
      if (tab.shown) return;
      request<StateView>('POST', '/api/sheet', { id: tab.id })
        .then((state) => applyState(state))
        .catch((error: unknown) => showNotice(error instanceof Error ? error.message : String(error)));
    });
    list.append(button);
  }
}

let version = '';
let pollTimer: ReturnType<typeof setTimeout> | undefined;
let polling = false;
let fast = false;
let firstState = true;

function setFastPolling(on: boolean): void {
  fast = on;
  if (on) schedule(FAST_POLL_MS);
}

function schedule(ms: number): void {
  if (pollTimer) clearTimeout(pollTimer);
  pollTimer = setTimeout(() => void poll(), ms);
}

function applyState(state: StateView, stale = false, serialAtRead = selectSerial): void {
  if (state.sheet && !stale) {
    renderTabs(state.sheet.tabs);
    document.body.dataset.readOnlySheet = String(state.sheet.readOnly);
    grid.setSheet(state.sheet);
  }
  if (!stale) version = state.version;
  if (firstState && state.selection) grid.setSelection(state.selection);
  else syncSelection(state.selection, serialAtRead);
  firstState = false;
  renderMenu(state.menu);
  renderSidebar(state);
  renderDialog(state);
  renderQuestion(state.question);
  renderToasts(state.toasts);
  renderSandbox(state.sandbox);
  $('user-chip').textContent = state.user === state.owner ? `${state.user} (owner)` : state.user;
  lastState = state;
  renderStatusLine();
  document.body.dataset.run = state.run?.state ?? 'idle';
  document.body.dataset.busy = String(state.busy.length > 0);
  fast =
    state.busy.length > 0 ||
    state.sidebarCalls > 0 ||
    state.question !== null ||
    (state.run?.state === 'running' && !state.run.waiting);
}

async function poll(now = false): Promise<void> {
  if (polling && !now) return;
  polling = true;
  try {
    const serial = writeSerial;
    // A selection of the grid's own not yet on the server when the state is read: that state cannot show it.
    const selectedAt = pendingSelection || selectsInFlight > 0 ? -1 : selectSerial;
    const state = await request<StateView>('GET', `/api/state?v=${encodeURIComponent(version)}`);
    applyState(state, writes > 0 || serial !== writeSerial, selectedAt);
  } catch {
    // The server is restarting or gone: try again later.
  } finally {
    polling = false;
    schedule(fast ? FAST_POLL_MS : SLOW_POLL_MS);
  }
}

async function start(): Promise<void> {
  try {
    // Opening the spreadsheet: the bundle's onOpen builds the menu; formulas keep their values.
    applyState(await request<StateView>('POST', '/api/open', {}));
  } catch (error) {
    showNotice(
      `The playground server did not answer: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  grid.focusGrid();
  schedule(fast ? FAST_POLL_MS : SLOW_POLL_MS);
}

void start();
