/** TEMPORARY fake workbook for UI development; replaced by the emulator-backed one. */
import type {
  CellEdit,
  DialogView,
  MenuView,
  RangeView,
  RunView,
  SheetView,
  SidebarView,
  ToastView,
} from './protocol';

export type SavedWorkbook = { cells: Array<[number, number, string]>; selection: RangeView | null };

export interface Workbook {
  readonly user: string;
  readonly owner: string;
  sheetView(): { version: string; sheet: SheetView };
  selection(): RangeView | null;
  menu(): MenuView | null;
  sidebar(): SidebarView;
  dialog(): DialogView | null;
  dialogHtml(serial: number): string | undefined;
  toasts(): ToastView[];
  busy(): string[];
  run(): RunView | null;
  open(): Promise<void>;
  setCells(edits: CellEdit[]): Promise<void>;
  setSelection(range: RangeView): Promise<void>;
  runMenu(fn: string): Promise<unknown>;
  closeSidebar(): void;
  closeDialog(): void;
  save(): Promise<SavedWorkbook>;
  close(): Promise<void>;
}

export async function openWorkbook(options: {
  distDir: string;
  baseUrl: string;
  saved?: SavedWorkbook;
  scriptProperties: Record<string, string>;
  log: (line: string) => void;
}): Promise<Workbook> {
  const cells = new Map<string, string>();
  for (const [r, c, v] of options.saved?.cells ?? [
    [1, 1, 'Profile URL'],
    [2, 1, 'https://www.network.com/in/jane-doe'],
  ]) {
    cells.set(`${r},${c}`, v);
  }
  let sel: RangeView | null = options.saved?.selection ?? null;
  let version = 0;
  return {
    user: 'demo@example.com',
    owner: 'demo@example.com',
    sheetView() {
      return {
        version: String(version),
        sheet: {
          name: 'Sheet1',
          rows: 1000,
          cols: 26,
          cells: [...cells].map(([k, v]) => {
            const [r, c] = k.split(',').map(Number);
            return { r, c, v };
          }),
        },
      };
    },
    selection: () => sel,
    menu: () => ({
      title: 'Profile Email Finder',
      items: [
        { label: 'Find e-mails for the selected column', fn: 'enrichSelection' },
        { label: 'Freeze =FINDEMAIL results in the selection', fn: 'freezeResults' },
        { label: '', separator: true },
        { label: 'Settings & API key', fn: 'showSettings' },
        { label: 'Help', fn: 'showHelp' },
      ],
    }),
    sidebar: () => ({ open: false, serial: 0, title: '', url: '' }),
    dialog: () => null,
    dialogHtml: () => undefined,
    toasts: () => [],
    busy: () => [],
    run: () => null,
    async open() {},
    async setCells(edits) {
      for (const e of edits) {
        if (e.value === '') cells.delete(`${e.r},${e.c}`);
        else cells.set(`${e.r},${e.c}`, e.value);
      }
      version++;
    },
    async setSelection(range) {
      sel = range;
    },
    async runMenu(fn) {
      throw new Error(`${fn} is not available in the fake workbook.`);
    },
    closeSidebar() {},
    closeDialog() {},
    async save() {
      return {
        cells: [...cells].map(([k, v]) => {
          const [r, c] = k.split(',').map(Number);
          return [r, c, v] as [number, number, string];
        }),
        selection: sel,
      };
    },
    async close() {},
  };
}
