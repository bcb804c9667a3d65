/** The page's elements and messages. Every text from the server goes in through textContent, never as HTML. */

export function $(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The sidebar has no #${id}`);
  return element;
}
export const button = (id: string) => $(id) as HTMLButtonElement;
export const input = (id: string) => $(id) as HTMLInputElement;
export const onClick = (id: string, handler: () => void) => button(id).addEventListener('click', handler);
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
  $(id).textContent = text;
  $(id).hidden = !shown;
}

/** A list item: its text, and below it in gray `detail` when there is one. */
export function listItem(text: string, detail?: string): HTMLLIElement {
  const item = document.createElement('li');
  item.textContent = text;
  if (detail) {
    const when = document.createElement('div');
    when.className = 'when';
    when.textContent = detail;
    item.append(when);
  }
  return item;
}

export function setMessage(id: string, text: string, tone: 'ok' | 'bad' | '' = ''): void {
  const element = $(id);
  element.textContent = text;
  element.classList.toggle('ok', tone === 'ok');
  element.classList.toggle('bad', tone === 'bad');
}

export function showError(text: string): void {
  setText('error-text', text);
  $('error').hidden = false;
}

export function clearError(): void {
  $('error').hidden = true;
  setText('error-text', '');
}

export function wholeNumber(id: string): number | undefined {
  const value = Number(input(id).value);
  return input(id).value.trim() !== '' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
