/**
 * The spreadsheet grid: a table with sticky headers that renders only the rows in view, selection by click,
 * shift-click and drag (scrolling when the pointer leaves the grid), editing in place (type, double-click, F2 or
 * Enter; Enter commits, Ctrl+Enter fills the selection), copy and paste, and filling as in Sheets: the fill handle
 * (drag it, or double-click it to fill down beside the data), Ctrl+D and Ctrl+R. A formula copied or filled moves
 * its relative references (emulator/model/a1.ts moveFormula). Cell text always goes in through textContent.
 */
import { moveFormula } from '../../emulator/model/a1';
import { type CellEdit, type CellView, columnLetter, type RangeView, type SheetView } from '../protocol';

export const ROW_HEIGHT = 21;
const HEADER_HEIGHT = 24;
const ROW_HEADER_WIDTH = 46;
const DEFAULT_WIDTH = 100;
const OVERSCAN = 8;
/** Paste, fills and Delete touch at most this many cells at once. */
const MAX_EDIT_CELLS = 30_000;
/** While a drag is past the grid's edge: rows scrolled each step, and the step. */
const AUTO_SCROLL_ROWS = 3;
const AUTO_SCROLL_MS = 40;

export interface GridEvents {
  /** The user changed cells. */
  commit(edits: CellEdit[]): void;
  /** The selection changed (after a click, a drag or a key). */
  select(range: RangeView): void;
  /** The active cell changed: the formula bar shows its content. */
  activeChanged(): void;
  /** The user resized a column. */
  resized?(widths: Record<number, number>): void;
  /** An action the grid refused, with the reason to show. */
  refused?(message: string): void;
}

interface Active {
  r: number;
  c: number;
}

/** What the grid copied last: a paste of the same text pastes its cells, formulas moved, as Sheets does. */
interface Copied {
  text: string;
  top: number;
  left: number;
  contents: string[][];
}

/**
 * The range a fill handle dragged to `to` fills: the selection stretched down, up, right or left, whichever way the
 * pointer is farther past it (Sheets fills one way at a time).
 */
function fillTarget(source: RangeView, to: Active): RangeView {
  const down = to.r - source.r2;
  const up = source.r1 - to.r;
  const right = to.c - source.c2;
  const left = source.c1 - to.c;
  const most = Math.max(down, up, right, left, 0);
  if (most === 0) return source;
  if (most === down) return { ...source, r2: to.r };
  if (most === up) return { ...source, r1: to.r };
  if (most === right) return { ...source, c2: to.c };
  return { ...source, c1: to.c };
}

/** The content `source` gives the cell `dr` rows and `dc` columns away: a formula moved, a value as it is. */
function carried(source: string, dr: number, dc: number): string {
  return source.startsWith('=') ? moveFormula(source, dr, dc) : source;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  return element;
}

export class Grid {
  readonly root: HTMLDivElement;
  private readonly scroller: HTMLDivElement;
  private readonly table: HTMLTableElement;
  private readonly colgroup: HTMLTableColElement;
  private readonly headRow: HTMLTableRowElement;
  private readonly body: HTMLTableSectionElement;
  private readonly topSpacer: HTMLTableRowElement;
  private readonly bottomSpacer: HTMLTableRowElement;
  private readonly editor: HTMLInputElement;
  private readonly fillHandle: HTMLDivElement;
  private readonly rowEls = new Map<number, HTMLTableRowElement>();

  private rows = 1000;
  private cols = 26;
  /** Shown read-only (an exported log): the reason an edit is refused, in words; '' on the editable sheet. */
  private readOnly = '';
  private cells = new Map<string, CellView>();
  private widths: number[] = [];

  private anchor: Active = { r: 1, c: 1 };
  private active: Active = { r: 1, c: 1 };
  private focus: Active = { r: 1, c: 1 };
  private dragging = false;
  private resizing: { c: number; startX: number; startWidth: number } | null = null;
  private editing: { r: number; c: number; original: string } | null = null;
  /** The fill handle being dragged: the selection it started from and the range it would fill. */
  private filling: { source: RangeView; target: RangeView } | null = null;
  /** A drag (selection or fill) past the grid's edge scrolls it: the pointer's last place and the timer. */
  private pointer = { x: 0, y: 0 };
  private autoScroll: ReturnType<typeof setInterval> | undefined;
  private copied: Copied | null = null;
  private renderQueued = false;
  private renderedHeaderCols = 0;

  constructor(
    host: HTMLElement,
    private readonly events: GridEvents,
    widths: Record<number, number> = {},
  ) {
    this.root = el('div', 'grid-wrap');
    this.scroller = el('div', 'grid-scroll');
    this.scroller.tabIndex = 0;
    this.scroller.setAttribute('role', 'grid');
    this.scroller.setAttribute('aria-label', 'Spreadsheet cells');
    this.table = el('table', 'grid');
    this.colgroup = el('colgroup');
    const head = el('thead');
    this.headRow = el('tr');
    head.append(this.headRow);
    this.body = el('tbody');
    this.topSpacer = el('tr', 'spacer');
    this.bottomSpacer = el('tr', 'spacer');
    this.body.append(this.topSpacer, this.bottomSpacer);
    this.table.append(this.colgroup, head, this.body);
    this.scroller.append(this.table);
    this.editor = el('input', 'cell-editor');
    this.editor.type = 'text';
    this.editor.spellcheck = false;
    this.editor.autocomplete = 'off';
    this.editor.hidden = true;
    this.editor.setAttribute('aria-label', 'Cell editor');
    this.fillHandle = el('div', 'fill-handle');
    this.fillHandle.title = 'Drag to fill; double-click to fill down beside the data';
    this.fillHandle.hidden = true;
    this.root.append(this.scroller, this.editor, this.fillHandle);
    host.append(this.root);
    for (const [column, width] of Object.entries(widths)) this.widths[Number(column)] = width;

    this.scroller.addEventListener('scroll', () => {
      this.queueRender();
      // A drag goes on while the wheel scrolls: the cell under the pointer is another one now.
      if ((this.dragging || this.filling) && !this.autoScroll)
        requestAnimationFrame(() => {
          if (this.dragging || this.filling) this.followPointer();
        });
    });
    new ResizeObserver(() => this.queueRender()).observe(this.scroller);
    this.scroller.addEventListener('mousedown', (event) => this.onMouseDown(event));
    this.fillHandle.addEventListener('mousedown', (event) => this.onFillHandleDown(event));
    this.fillHandle.addEventListener('dblclick', (event) => {
      event.preventDefault();
      this.fillDownBesideData();
    });
    window.addEventListener('mousemove', (event) => this.onMouseMove(event));
    window.addEventListener('mouseup', () => this.onMouseUp());
    this.scroller.addEventListener('keydown', (event) => this.onKeyDown(event));
    this.editor.addEventListener('keydown', (event) => this.onEditorKey(event));
    this.editor.addEventListener('input', () => this.sizeEditor());
    this.editor.addEventListener('blur', () => {
      if (this.editing) this.commitEdit(0, 0, false);
    });
    document.addEventListener('copy', (event) => this.onCopy(event));
    document.addEventListener('paste', (event) => this.onPaste(event));
    this.renderColumns();
    this.render();
  }

  // -------------------------------------------------------------------------------------------------------------
  // Data

  setSheet(sheet: SheetView): void {
    this.rows = sheet.rows;
    this.cols = sheet.cols;
    const editable = sheet.tabs[0]?.name ?? '';
    this.readOnly = sheet.readOnly
      ? `"${sheet.name}" is shown read-only: the playground edits only the sheet "${editable}". Open its tab below to edit it.`
      : '';
    this.cells = new Map(sheet.cells.map((cell) => [`${cell.r},${cell.c}`, cell]));
    this.render();
    this.events.activeChanged();
  }

  cell(r: number, c: number): CellView | undefined {
    return this.cells.get(`${r},${c}`);
  }

  /** What the formula bar shows for a cell: its formula, or its value. */
  rawContent(r: number, c: number): string {
    const cell = this.cell(r, c);
    return cell ? (cell.f ?? cell.v) : '';
  }

  get activeCell(): Active {
    return { ...this.active };
  }

  get selection(): RangeView {
    return {
      r1: Math.min(this.anchor.r, this.focus.r),
      c1: Math.min(this.anchor.c, this.focus.c),
      r2: Math.max(this.anchor.r, this.focus.r),
      c2: Math.max(this.anchor.c, this.focus.c),
    };
  }

  /** Selects a range (from the server at load, or after a paste); the active cell is its top-left. */
  setSelection(range: RangeView, notify = false, reveal = false): void {
    this.anchor = { r: range.r1, c: range.c1 };
    this.active = { r: range.r1, c: range.c1 };
    this.focus = { r: range.r2, c: range.c2 };
    if (reveal) this.reveal(range.r1, range.c1);
    this.render();
    this.events.activeChanged();
    if (notify) this.events.select(this.selection);
  }

  focusGrid(): void {
    this.scroller.focus({ preventScroll: true });
  }

  get isEditing(): boolean {
    return this.editing !== null;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Rendering

  widthsByColumn(): Record<number, number> {
    const widths: Record<number, number> = {};
    this.widths.forEach((width, column) => {
      if (width) widths[column] = width;
    });
    return widths;
  }

  private width(column: number): number {
    return this.widths[column] ?? DEFAULT_WIDTH;
  }

  private renderColumns(): void {
    this.colgroup.replaceChildren();
    const corner = el('col');
    corner.style.width = `${ROW_HEADER_WIDTH}px`;
    this.colgroup.append(corner);
    let total = ROW_HEADER_WIDTH;
    for (let c = 1; c <= this.cols; c++) {
      const col = el('col');
      col.style.width = `${this.width(c)}px`;
      this.colgroup.append(col);
      total += this.width(c);
    }
    this.table.style.width = `${total}px`;
    this.headRow.replaceChildren();
    const cornerCell = el('th', 'corner');
    cornerCell.style.height = `${HEADER_HEIGHT}px`;
    this.headRow.append(cornerCell);
    for (let c = 1; c <= this.cols; c++) {
      const th = el('th', 'col-head');
      th.dataset.c = String(c);
      th.textContent = columnLetter(c);
      this.headRow.append(th);
    }
    this.renderedHeaderCols = this.cols;
    for (const row of this.rowEls.values()) row.remove();
    this.rowEls.clear();
  }

  private queueRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      this.render();
    });
  }

  private visibleRows(scrollTop = this.scroller.scrollTop): [number, number] {
    const top = Math.max(0, scrollTop);
    const height = Math.max(this.scroller.clientHeight - HEADER_HEIGHT, ROW_HEIGHT);
    const first = Math.max(1, Math.floor(top / ROW_HEIGHT) + 1 - OVERSCAN);
    const last = Math.min(this.rows, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    return [first, last];
  }

  render(): void {
    // New columns rebuild every row: the scroll position is kept (the emptied table would clamp it).
    const kept =
      this.renderedHeaderCols !== this.cols
        ? { top: this.scroller.scrollTop, left: this.scroller.scrollLeft }
        : undefined;
    if (kept) this.renderColumns();
    const [first, last] = this.visibleRows(kept?.top);
    this.topSpacer.style.height = `${(first - 1) * ROW_HEIGHT}px`;
    this.bottomSpacer.style.height = `${Math.max(0, this.rows - last) * ROW_HEIGHT}px`;
    for (const [r, row] of this.rowEls) {
      if (r < first || r > last) {
        row.remove();
        this.rowEls.delete(r);
      }
    }
    let previous: Element = this.topSpacer;
    for (let r = first; r <= last; r++) {
      let row = this.rowEls.get(r);
      if (!row) {
        row = this.createRow(r);
        this.rowEls.set(r, row);
      }
      if (previous.nextElementSibling !== row) previous.after(row);
      this.updateRow(r, row);
      previous = row;
    }
    const sel = this.selection;
    this.headRow.querySelectorAll<HTMLElement>('th.col-head').forEach((th) => {
      const c = Number(th.dataset.c);
      th.classList.toggle('in-sel', c >= sel.c1 && c <= sel.c2);
    });
    if (kept) {
      this.scroller.scrollTop = kept.top;
      this.scroller.scrollLeft = kept.left;
    }
    this.placeEditor();
    this.placeFillHandle();
  }

  /** The fill handle: the small square at the selection's bottom-right corner, when that cell is in view. */
  private placeFillHandle(): void {
    const sel = this.filling?.source ?? this.selection;
    const td = this.editing ? null : this.cellElement(sel.r2, sel.c2);
    const box = td?.getBoundingClientRect();
    const view = this.scroller.getBoundingClientRect();
    if (!box || box.bottom > view.bottom || box.right > view.right || box.bottom < view.top + HEADER_HEIGHT) {
      this.fillHandle.hidden = true;
      return;
    }
    const root = this.root.getBoundingClientRect();
    this.fillHandle.hidden = false;
    this.fillHandle.style.left = `${box.right - root.left - 4}px`;
    this.fillHandle.style.top = `${box.bottom - root.top - 4}px`;
  }

  private createRow(r: number): HTMLTableRowElement {
    const row = el('tr');
    const head = el('th', 'row-head');
    head.dataset.r = String(r);
    head.textContent = String(r);
    row.append(head);
    for (let c = 1; c <= this.cols; c++) {
      const td = el('td');
      td.dataset.r = String(r);
      td.dataset.c = String(c);
      row.append(td);
    }
    return row;
  }

  private updateRow(r: number, row: HTMLTableRowElement): void {
    const sel = this.selection;
    const rowSelected = r >= sel.r1 && r <= sel.r2;
    (row.firstElementChild as HTMLElement).classList.toggle('in-sel', rowSelected);
    const multi = sel.r1 !== sel.r2 || sel.c1 !== sel.c2;
    for (let c = 1; c <= this.cols; c++) {
      const td = row.children[c] as HTMLTableCellElement;
      const cell = this.cells.get(`${r},${c}`);
      const text = cell ? cell.v : '';
      if (td.textContent !== text) td.textContent = text;
      const inSel = rowSelected && c >= sel.c1 && c <= sel.c2;
      const classes = ['cell'];
      if (cell?.k) classes.push(`k-${cell.k}`);
      if (cell?.f) classes.push('formula');
      if (inSel && multi) classes.push('sel');
      if (inSel && r === sel.r1) classes.push('sel-top');
      if (inSel && r === sel.r2) classes.push('sel-bottom');
      if (inSel && c === sel.c1) classes.push('sel-left');
      if (inSel && c === sel.c2) classes.push('sel-right');
      if (r === this.active.r && c === this.active.c) classes.push('active');
      const fill = this.filling?.target;
      if (fill && r >= fill.r1 && r <= fill.r2 && c >= fill.c1 && c <= fill.c2) classes.push('fill');
      const className = classes.join(' ');
      if (td.className !== className) td.className = className;
      const title = cell?.note ?? (cell && cell.v.length > 24 ? cell.v : '');
      if (td.title !== title) td.title = title;
    }
  }

  private cellElement(r: number, c: number): HTMLTableCellElement | null {
    const row = this.rowEls.get(r);
    return row ? ((row.children[c] as HTMLTableCellElement | undefined) ?? null) : null;
  }

  /** Scrolls so that the cell is in view. */
  private reveal(r: number, c: number): void {
    const top = (r - 1) * ROW_HEIGHT;
    const viewTop = this.scroller.scrollTop;
    const viewHeight = this.scroller.clientHeight - HEADER_HEIGHT;
    if (top < viewTop) this.scroller.scrollTop = top;
    else if (top + ROW_HEIGHT > viewTop + viewHeight) this.scroller.scrollTop = top + ROW_HEIGHT - viewHeight;
    let left = 0;
    for (let col = 1; col < c; col++) left += this.width(col);
    const viewLeft = this.scroller.scrollLeft;
    const viewWidth = this.scroller.clientWidth - ROW_HEADER_WIDTH;
    if (left < viewLeft) this.scroller.scrollLeft = left;
    else if (left + this.width(c) > viewLeft + viewWidth)
      this.scroller.scrollLeft = left + this.width(c) - viewWidth;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Selection

  private target(
    event: MouseEvent,
  ): { r: number; c: number; kind: 'cell' | 'col' | 'row' | 'corner' } | null {
    const node = event.target instanceof Element ? event.target.closest('td, th') : null;
    if (!(node instanceof HTMLElement)) return null;
    if (node.classList.contains('corner')) return { r: 0, c: 0, kind: 'corner' };
    if (node.classList.contains('col-head')) return { r: 0, c: Number(node.dataset.c), kind: 'col' };
    if (node.classList.contains('row-head')) return { r: Number(node.dataset.r), c: 0, kind: 'row' };
    if (node.dataset.r && node.dataset.c)
      return { r: Number(node.dataset.r), c: Number(node.dataset.c), kind: 'cell' };
    return null;
  }

  /** The column whose right edge is under the pointer on a column header, if any. */
  private resizeEdge(event: MouseEvent): number {
    const th = event.target instanceof Element ? event.target.closest('th.col-head') : null;
    if (!(th instanceof HTMLElement)) return 0;
    const box = th.getBoundingClientRect();
    return box.right - event.clientX <= 5 ? Number(th.dataset.c) : 0;
  }

  private onMouseDown(event: MouseEvent): void {
    if (event.button !== 0) return;
    const edge = this.resizeEdge(event);
    if (edge) {
      event.preventDefault();
      this.resizing = { c: edge, startX: event.clientX, startWidth: this.width(edge) };
      return;
    }
    const hit = this.target(event);
    if (!hit) return;
    event.preventDefault();
    if (this.editing) this.commitEdit(0, 0, false);
    this.focusGrid();
    if (hit.kind === 'corner') {
      this.anchor = { r: 1, c: 1 };
      this.active = { r: 1, c: 1 };
      this.focus = { r: this.rows, c: this.cols };
    } else if (hit.kind === 'col') {
      if (event.shiftKey) {
        this.focus = { r: this.rows, c: hit.c };
      } else {
        this.anchor = { r: 1, c: hit.c };
        this.active = { r: 1, c: hit.c };
        this.focus = { r: this.rows, c: hit.c };
      }
    } else if (hit.kind === 'row') {
      if (event.shiftKey) {
        this.focus = { r: hit.r, c: this.cols };
      } else {
        this.anchor = { r: hit.r, c: 1 };
        this.active = { r: hit.r, c: 1 };
        this.focus = { r: hit.r, c: this.cols };
      }
    } else if (event.shiftKey) {
      this.focus = { r: hit.r, c: hit.c };
    } else {
      this.anchor = { r: hit.r, c: hit.c };
      this.active = { r: hit.r, c: hit.c };
      this.focus = { r: hit.r, c: hit.c };
      this.dragging = true;
      // A double click edits the cell (counted here: the row may be redrawn between the two clicks).
      if (event.detail >= 2) {
        this.dragging = false;
        this.render();
        this.startEdit(this.rawContent(hit.r, hit.c));
        return;
      }
    }
    this.render();
    this.events.activeChanged();
    if (!this.dragging) this.events.select(this.selection);
  }

  private onMouseMove(event: MouseEvent): void {
    if (this.resizing) {
      const { c, startX, startWidth } = this.resizing;
      this.widths[c] = Math.max(30, Math.round(startWidth + event.clientX - startX));
      const col = this.colgroup.children[c] as HTMLElement | undefined;
      if (col) col.style.width = `${this.widths[c]}px`;
      let total = ROW_HEADER_WIDTH;
      for (let column = 1; column <= this.cols; column++) total += this.width(column);
      this.table.style.width = `${total}px`;
      this.placeEditor();
      return;
    }
    if (event.target instanceof Element && event.target.closest('th.col-head')) {
      const th = event.target.closest('th.col-head') as HTMLElement;
      th.classList.toggle('resizable', this.resizeEdge(event) > 0);
    }
    if (!this.dragging && !this.filling) return;
    this.pointer = { x: event.clientX, y: event.clientY };
    this.followPointer();
  }

  /** The cell under the pointer during a drag (the last row or column in view when it is past the grid's edge). */
  private cellAtPointer(): Active | null {
    const view = this.scroller.getBoundingClientRect();
    const x = Math.min(Math.max(this.pointer.x, view.left + ROW_HEADER_WIDTH + 1), view.right - 2);
    const y = Math.min(Math.max(this.pointer.y, view.top + HEADER_HEIGHT + 1), view.bottom - 2);
    const node = document.elementFromPoint(x, y)?.closest('td');
    if (!(node instanceof HTMLElement) || !node.dataset.r || !node.dataset.c) return null;
    return { r: Number(node.dataset.r), c: Number(node.dataset.c) };
  }

  /** A selection or a fill being dragged follows the pointer; past the grid's edge the grid scrolls meanwhile. */
  private followPointer(): void {
    const view = this.scroller.getBoundingClientRect();
    const past =
      this.pointer.y > view.bottom - 2 ||
      this.pointer.y < view.top + HEADER_HEIGHT ||
      this.pointer.x > view.right - 2 ||
      this.pointer.x < view.left + ROW_HEADER_WIDTH;
    if (past && !this.autoScroll)
      this.autoScroll = setInterval(() => this.scrollTowardsPointer(), AUTO_SCROLL_MS);
    if (!past) this.stopAutoScroll();
    const hit = this.cellAtPointer();
    if (!hit) return;
    if (this.filling) {
      const target = fillTarget(this.filling.source, hit);
      const old = this.filling.target;
      if (target.r1 === old.r1 && target.r2 === old.r2 && target.c1 === old.c1 && target.c2 === old.c2)
        return;
      this.filling.target = target;
      this.render();
      return;
    }
    if (hit.r === this.focus.r && hit.c === this.focus.c) return;
    this.focus = hit;
    this.render();
  }

  private scrollTowardsPointer(): void {
    if (!this.dragging && !this.filling) {
      this.stopAutoScroll();
      return;
    }
    const view = this.scroller.getBoundingClientRect();
    if (this.pointer.y > view.bottom - 2) this.scroller.scrollTop += AUTO_SCROLL_ROWS * ROW_HEIGHT;
    else if (this.pointer.y < view.top + HEADER_HEIGHT)
      this.scroller.scrollTop -= AUTO_SCROLL_ROWS * ROW_HEIGHT;
    if (this.pointer.x > view.right - 2) this.scroller.scrollLeft += DEFAULT_WIDTH;
    else if (this.pointer.x < view.left + ROW_HEADER_WIDTH) this.scroller.scrollLeft -= DEFAULT_WIDTH;
    // The rows scrolled into view are drawn now, so the pointer's cell is found among them.
    this.render();
    this.followPointer();
  }

  private stopAutoScroll(): void {
    if (this.autoScroll) clearInterval(this.autoScroll);
    this.autoScroll = undefined;
  }

  private onMouseUp(): void {
    this.stopAutoScroll();
    if (this.resizing) {
      this.resizing = null;
      this.events.resized?.({ ...this.widthsByColumn() });
      return;
    }
    if (this.filling) {
      const { source, target } = this.filling;
      this.filling = null;
      this.fill(source, target);
      return;
    }
    if (!this.dragging) return;
    this.dragging = false;
    this.events.select(this.selection);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Filling: the fill handle, Ctrl+D, Ctrl+R

  private onFillHandleDown(event: MouseEvent): void {
    if (event.button !== 0 || this.refusedHere()) return;
    event.preventDefault();
    event.stopPropagation();
    if (this.editing) this.commitEdit(0, 0, false);
    this.focusGrid();
    // The second press of a double-click fills down beside the data (the dblclick event); no drag starts.
    if (event.detail >= 2) return;
    const source = this.selection;
    this.filling = { source, target: source };
    this.pointer = { x: event.clientX, y: event.clientY };
  }

  /**
   * Repeats the source block over the target (which holds it), as Sheets fills: each cell gets the source cell at
   * the same place in the repeated block, a formula with its relative references moved.
   */
  private fill(source: RangeView, target: RangeView): void {
    const height = source.r2 - source.r1 + 1;
    const width = source.c2 - source.c1 + 1;
    const cells = (target.r2 - target.r1 + 1) * (target.c2 - target.c1 + 1) - height * width;
    if (cells <= 0) return;
    if (cells > MAX_EDIT_CELLS) {
      this.events.refused?.(
        `Nothing was filled: ${cells.toLocaleString('en-US')} cells are more than the playground takes at once (${MAX_EDIT_CELLS.toLocaleString('en-US')}). Fill in parts.`,
      );
      this.render();
      return;
    }
    const edits: CellEdit[] = [];
    for (let r = target.r1; r <= target.r2; r++) {
      for (let c = target.c1; c <= target.c2; c++) {
        if (r >= source.r1 && r <= source.r2 && c >= source.c1 && c <= source.c2) continue;
        const sr = source.r1 + ((((r - source.r1) % height) + height) % height);
        const sc = source.c1 + ((((c - source.c1) % width) + width) % width);
        const value = carried(this.rawContent(sr, sc), r - sr, c - sc);
        if (value !== '' || this.cells.has(`${r},${c}`)) edits.push({ r, c, value });
      }
    }
    this.setSelection(target, true);
    if (edits.length > 0) this.applyLocally(edits);
  }

  /** Double-click on the fill handle: down to the last row of the data beside the selection (left, else right). */
  private fillDownBesideData(): void {
    const sel = this.selection;
    const filled = (c: number) => (r: number) => c >= 1 && c <= this.cols && this.rawContent(r, c) !== '';
    const beside = [filled(sel.c1 - 1), filled(sel.c2 + 1)].find((has) => has(sel.r2 + 1));
    if (!beside) return;
    let last = sel.r2 + 1;
    while (last < this.rows && beside(last + 1)) last++;
    this.fill(sel, { ...sel, r2: last });
  }

  /** Ctrl+D (down) and Ctrl+R (right): the selection's first row or column into the rest; one cell: from above or left. */
  private fillFromEdge(down: boolean): void {
    const sel = this.selection;
    const single = down ? sel.r1 === sel.r2 : sel.c1 === sel.c2;
    if (single && (down ? sel.r1 === 1 : sel.c1 === 1)) return;
    const source = down
      ? { ...sel, r1: single ? sel.r1 - 1 : sel.r1, r2: single ? sel.r1 - 1 : sel.r1 }
      : { ...sel, c1: single ? sel.c1 - 1 : sel.c1, c2: single ? sel.c1 - 1 : sel.c1 };
    const target = down ? { ...sel, r1: source.r1 } : { ...sel, c1: source.c1 };
    this.fill(source, target);
    if (single) this.setSelection(sel, true);
  }

  private moveActive(dr: number, dc: number, extend: boolean): void {
    if (extend) {
      this.focus = {
        r: Math.min(this.rows, Math.max(1, this.focus.r + dr)),
        c: Math.min(this.cols, Math.max(1, this.focus.c + dc)),
      };
      this.reveal(this.focus.r, this.focus.c);
    } else {
      const r = Math.min(this.rows, Math.max(1, this.active.r + dr));
      const c = Math.min(this.cols, Math.max(1, this.active.c + dc));
      this.anchor = { r, c };
      this.active = { r, c };
      this.focus = { r, c };
      this.reveal(r, c);
    }
    this.render();
    this.events.activeChanged();
    this.events.select(this.selection);
  }

  private onKeyDown(event: KeyboardEvent): void {
    if (event.target !== this.scroller) return;
    const { key } = event;
    const moves: Record<string, [number, number]> = {
      ArrowUp: [-1, 0],
      ArrowDown: [1, 0],
      ArrowLeft: [0, -1],
      ArrowRight: [0, 1],
      PageUp: [-20, 0],
      PageDown: [20, 0],
    };
    if (moves[key] && !event.altKey) {
      event.preventDefault();
      const [dr, dc] = moves[key];
      const jump = event.ctrlKey || event.metaKey;
      this.moveActive(jump ? dr * this.rows : dr, jump ? dc * this.cols : dc, event.shiftKey);
      return;
    }
    const letter = key.toLowerCase();
    if ((event.ctrlKey || event.metaKey) && !event.altKey && (letter === 'd' || letter === 'r')) {
      event.preventDefault();
      this.fillFromEdge(letter === 'd');
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (key === 'Tab') {
      event.preventDefault();
      this.moveActive(0, event.shiftKey ? -1 : 1, false);
    } else if (key === 'Enter' || key === 'F2') {
      event.preventDefault();
      this.startEdit(this.rawContent(this.active.r, this.active.c));
    } else if (key === 'Delete' || key === 'Backspace') {
      event.preventDefault();
      this.clearSelection();
    } else if (key.length === 1) {
      // Typing replaces the cell's content, as in Sheets.
      event.preventDefault();
      this.startEdit(key);
    }
  }

  private clearSelection(): void {
    const sel = this.selection;
    const edits: CellEdit[] = [];
    for (let r = sel.r1; r <= sel.r2; r++) {
      for (let c = sel.c1; c <= sel.c2; c++) {
        if (this.cells.has(`${r},${c}`)) edits.push({ r, c, value: '' });
      }
    }
    if (edits.length > 0 && edits.length <= MAX_EDIT_CELLS) this.applyLocally(edits);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Editing

  /** On a sheet shown read-only, says why nothing is changed; true when editing is refused. */
  private refusedHere(): boolean {
    if (!this.readOnly) return false;
    this.events.refused?.(this.readOnly);
    return true;
  }

  startEdit(text: string): void {
    if (this.refusedHere()) return;
    this.editing = {
      r: this.active.r,
      c: this.active.c,
      original: this.rawContent(this.active.r, this.active.c),
    };
    this.reveal(this.active.r, this.active.c);
    this.render();
    this.editor.value = text;
    this.editor.hidden = false;
    this.placeEditor();
    this.editor.focus();
    this.editor.setSelectionRange(text.length, text.length);
  }

  private placeEditor(): void {
    if (!this.editing) return;
    const td = this.cellElement(this.editing.r, this.editing.c);
    if (!td) {
      this.editor.style.visibility = 'hidden';
      return;
    }
    const box = td.getBoundingClientRect();
    const root = this.root.getBoundingClientRect();
    this.editor.style.visibility = 'visible';
    this.editor.style.left = `${box.left - root.left}px`;
    this.editor.style.top = `${box.top - root.top}px`;
    this.editor.style.height = `${box.height}px`;
    this.editor.dataset.minWidth = String(box.width);
    this.sizeEditor();
  }

  private sizeEditor(): void {
    const min = Number(this.editor.dataset.minWidth ?? DEFAULT_WIDTH);
    const wanted = Math.max(min, this.editor.value.length * 7.2 + 16);
    const room = this.root.clientWidth - Number.parseFloat(this.editor.style.left || '0') - 4;
    this.editor.style.width = `${Math.max(min, Math.min(wanted, room))}px`;
  }

  private onEditorKey(event: KeyboardEvent): void {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      this.commitToSelection();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      this.commitEdit(event.shiftKey ? -1 : 1, 0, true);
    } else if (event.key === 'Tab') {
      event.preventDefault();
      this.commitEdit(0, event.shiftKey ? -1 : 1, true);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      this.cancelEdit();
    }
  }

  private finishEditing(): { r: number; c: number; original: string } | null {
    const editing = this.editing;
    this.editing = null;
    this.editor.hidden = true;
    return editing;
  }

  /** Writes the editor's text to the cell, then moves the active cell (dr, dc). */
  commitEdit(dr: number, dc: number, refocus: boolean): void {
    const editing = this.finishEditing();
    if (!editing) return;
    const value = this.editor.value;
    if (value !== editing.original) this.applyLocally([{ r: editing.r, c: editing.c, value }]);
    if (refocus) {
      this.focusGrid();
      if (dr !== 0 || dc !== 0) this.moveActive(dr, dc, false);
    }
  }

  /** Ctrl+Enter: the editor's text into every selected cell, a formula moved from the cell being edited. */
  private commitToSelection(): void {
    const editing = this.finishEditing();
    if (!editing) return;
    const text = this.editor.value;
    const sel = this.selection;
    const count = (sel.r2 - sel.r1 + 1) * (sel.c2 - sel.c1 + 1);
    this.focusGrid();
    if (count > MAX_EDIT_CELLS) {
      this.events.refused?.(
        `Nothing was filled: ${count.toLocaleString('en-US')} cells are more than the playground takes at once (${MAX_EDIT_CELLS.toLocaleString('en-US')}).`,
      );
      this.render();
      return;
    }
    const edits: CellEdit[] = [];
    for (let r = sel.r1; r <= sel.r2; r++)
      for (let c = sel.c1; c <= sel.c2; c++)
        edits.push({ r, c, value: carried(text, r - editing.r, c - editing.c) });
    this.applyLocally(edits);
  }

  cancelEdit(): void {
    if (!this.finishEditing()) return;
    this.focusGrid();
    this.render();
  }

  /** Shows the edits at once (formulas as loading), then sends them. */
  applyLocally(edits: CellEdit[]): void {
    if (this.refusedHere()) return;
    for (const edit of edits) {
      const key = `${edit.r},${edit.c}`;
      if (edit.value === '') this.cells.delete(key);
      else if (edit.value.startsWith('='))
        this.cells.set(key, { r: edit.r, c: edit.c, v: 'Loading…', f: edit.value, k: 'loading' });
      else this.cells.set(key, { r: edit.r, c: edit.c, v: edit.value });
    }
    this.render();
    this.events.activeChanged();
    this.events.commit(edits);
  }

  /** Writes the formula bar's text into the active cell. */
  setActiveContent(value: string): void {
    if (value === this.rawContent(this.active.r, this.active.c)) return;
    this.applyLocally([{ r: this.active.r, c: this.active.c, value }]);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Clipboard

  private clipboardTarget(): boolean {
    const focused = document.activeElement;
    return !this.editing && (focused === this.scroller || focused === document.body || focused === null);
  }

  private onCopy(event: ClipboardEvent): void {
    if (!this.clipboardTarget() || !event.clipboardData) return;
    const sel = this.selection;
    const lines: string[] = [];
    for (let r = sel.r1; r <= Math.min(sel.r2, sel.r1 + 5000); r++) {
      const values: string[] = [];
      for (let c = sel.c1; c <= sel.c2; c++) values.push(this.cells.get(`${r},${c}`)?.v ?? '');
      lines.push(values.join('\t'));
    }
    while (lines.length > 1 && lines[lines.length - 1].replace(/\t/g, '') === '') lines.pop();
    const text = lines.join('\n');
    // Other applications get the values; a paste here of the same text gets the cells, formulas included.
    const contents: string[][] = [];
    for (let r = sel.r1; r <= sel.r1 + lines.length - 1; r++) {
      const row: string[] = [];
      for (let c = sel.c1; c <= sel.c2; c++) row.push(this.rawContent(r, c));
      contents.push(row);
    }
    this.copied = { text, top: sel.r1, left: sel.c1, contents };
    event.clipboardData.setData('text/plain', text);
    event.preventDefault();
  }

  private onPaste(event: ClipboardEvent): void {
    if (!this.clipboardTarget() || !event.clipboardData) return;
    const text = event.clipboardData.getData('text/plain');
    if (text === '') return;
    event.preventDefault();
    this.paste(text);
  }

  /**
   * Lines go into cells downward from the active cell, tab-separated parts to the right. Past the last row or
   * column the sheet grows, as in Sheets (the server adds the rows); a paste too large is refused whole, with a
   * message, never cut short.
   */
  paste(text: string): void {
    const lines = text.replace(/\r\n?/g, '\n').split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const top = this.active.r;
    const left = this.active.c;
    const copied = this.copied?.text === text ? this.copied : null;
    const rows = copied
      ? copied.contents.map((line) =>
          line.map((content) => carried(content, top - copied.top, left - copied.left)),
        )
      : lines.map((line) => line.split('\t'));
    const width = Math.max(1, ...rows.map((parts) => parts.length));
    const cellCount = rows.reduce((sum, parts) => sum + parts.length, 0);
    if (cellCount > MAX_EDIT_CELLS) {
      this.events.refused?.(
        `Nothing was pasted: ${cellCount.toLocaleString('en-US')} cells are more than the playground takes at once (${MAX_EDIT_CELLS.toLocaleString('en-US')}). Paste in parts.`,
      );
      return;
    }
    const edits: CellEdit[] = [];
    rows.forEach((parts, index) => {
      parts.forEach((part, offset) => {
        edits.push({ r: top + index, c: left + offset, value: copied ? part : part.trim() });
      });
    });
    if (edits.length === 0) return;
    const bottom = top + lines.length - 1;
    const right = left + width - 1;
    if (bottom > this.rows || right > this.cols) {
      // Shown at once; the server's next view confirms the new size.
      this.rows = Math.max(this.rows, bottom);
      this.cols = Math.max(this.cols, right);
    }
    this.applyLocally(edits);
    this.setSelection({ r1: top, c1: left, r2: bottom, c2: right }, true);
  }
}
