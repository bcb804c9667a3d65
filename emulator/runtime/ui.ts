/** Ui: menus, sidebars, dialogs, alerts and prompts (answered by services/ui.ts). */
import { call, count, fail } from './core';
import { HtmlOutput } from './html';

const Button = { OK: 'OK', CANCEL: 'CANCEL', YES: 'YES', NO: 'NO', CLOSE: 'CLOSE' };
const ButtonSet = { OK: 'OK', OK_CANCEL: 'OK_CANCEL', YES_NO: 'YES_NO', YES_NO_CANCEL: 'YES_NO_CANCEL' };

type MenuItem =
  | { caption: string; functionName: string }
  | { separator: true }
  | { caption?: string; submenu: MenuItem[] };

class Menu {
  readonly _items: MenuItem[] = [];
  constructor(
    readonly _title: string | undefined,
    private readonly _addon: boolean,
  ) {}
  addItem(caption: unknown, functionName: unknown): this {
    count('Menu.addItem');
    this._items.push({ caption: String(caption), functionName: String(functionName) });
    return this;
  }
  addSeparator(): this {
    count('Menu.addSeparator');
    this._items.push({ separator: true });
    return this;
  }
  addSubMenu(menu: Menu): this {
    count('Menu.addSubMenu');
    this._items.push({ caption: menu._title, submenu: menu._items });
    return this;
  }
  addToUi(): void {
    call('Ui.addMenu', [{ title: this._title, addon: this._addon, items: this._items }]);
  }
}

function outputData(output: unknown, title?: unknown) {
  if (!(output instanceof HtmlOutput)) fail('Invalid argument: userInterface');
  return output._describe(title);
}

/** alert(prompt), alert(prompt, buttons), alert(title, prompt, buttons); the same for prompt. */
function dialogArgs(a: unknown, b: unknown, c: unknown) {
  if (b === undefined) return { prompt: String(a) };
  if (c === undefined) return { prompt: String(a), buttons: b };
  return { title: String(a), prompt: String(b), buttons: c };
}

export const Ui = {
  Button,
  ButtonSet,
  createAddonMenu(): Menu {
    count('Ui.createAddonMenu');
    return new Menu(undefined, true);
  },
  createMenu(caption: unknown): Menu {
    count('Ui.createMenu');
    return new Menu(String(caption), false);
  },
  alert(a: unknown, b?: unknown, c?: unknown): string {
    return call('Ui.alert', [dialogArgs(a, b, c)]);
  },
  prompt(a: unknown, b?: unknown, c?: unknown) {
    const answer = call<{ button: string; text: string }>('Ui.prompt', [dialogArgs(a, b, c)]);
    return {
      getResponseText: () => answer.text,
      getSelectedButton: () => answer.button,
    };
  },
  showSidebar(output: unknown): void {
    call('Ui.showSidebar', [outputData(output)]);
  },
  showModalDialog(output: unknown, title: unknown): void {
    call('Ui.showModalDialog', [outputData(output, title)]);
  },
  showModelessDialog(output: unknown, title: unknown): void {
    call('Ui.showModelessDialog', [outputData(output, title)]);
  },
};
