/** The page's elements and messages. Every text from the server goes in through textContent, never as HTML. */
import { failureMessage } from './types';

export function $(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The sidebar has no #${id}`);
  return element;
}
export const button = (id: string) => $(id) as HTMLButtonElement;
export const input = (id: string) => $(id) as HTMLInputElement;
export const onClick = (id: string, handler: () => void) => button(id).addEventListener('click', handler);
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function onSubmit(id: string, submit: () => void): void {
  $(id).addEventListener('submit', (event) => {
    event.preventDefault();
    submit();
  });
}

/** A new element with these properties, then these children. */
export function make<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  properties: Partial<HTMLElementTagNameMap[K]>,
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = Object.assign(document.createElement(tag), properties);
  element.append(...children);
  return element;
}

/** Every `ms` while `more()`: `look`, a failed one tried again at the next. */
export async function every(ms: number, more: () => boolean, look: () => Promise<void>): Promise<void> {
  while (more()) {
    await sleep(ms);
    if (more()) await look().catch(() => undefined);
  }
}

export function setText(id: string, text: string): void {
  $(id).textContent = text;
}

/** Sets an element's text and hides it when `shown` is false (by default: when the text is empty). */
export function showText(id: string, text: string, shown = text !== ''): void {
  setText(id, text);
  $(id).hidden = !shown;
}

/** A list item: its text, and below it in gray `detail` when there is one. */
export function listItem(text: string, detail?: string): HTMLLIElement {
  const when = detail ? [make('div', { className: 'when', textContent: detail })] : [];
  return make('li', { textContent: text }, ...when);
}

export function setMessage(id: string, text: string, tone: 'ok' | 'bad' | '' = ''): void {
  setText(id, text);
  for (const name of ['ok', 'bad']) $(id).classList.toggle(name, tone === name);
}

export function showError(text: string): void {
  setText('error-text', text);
  $('error').hidden = false;
}

export function clearError(): void {
  $('error').hidden = true;
  setText('error-text', '');
}

/** `work`'s answer, or undefined when it failed: its message then shows in the error banner, after `failed`. */
export function orShowError<T>(work: Promise<T>, failed?: string): Promise<T | undefined> {
  return work.catch((error) => {
    showError(failed ? `${failed}: ${failureMessage(error)}` : failureMessage(error));
    return undefined;
  });
}

/** A confirm box opened on its `keep` button; `keep` closes it, back on `opener`. Returns what opens it. */
export function confirmBox(box: string, opener: string, keep: string): () => void {
  onClick(keep, () => {
    $(box).hidden = true;
    button(opener).focus();
  });
  return () => {
    $(box).hidden = false;
    button(keep).focus();
  };
}

/** Runs one server call for a button: disables the buttons meanwhile, shows a failure as the error banner. */
export async function withButtons(ids: string[], work: () => Promise<unknown>): Promise<void> {
  const buttons = ids.map(button);
  const before = buttons.map((b) => b.disabled);
  for (const b of buttons) b.disabled = true;
  clearError();
  await orShowError(work());
  for (const [index, b] of buttons.entries()) b.disabled = before[index];
}
