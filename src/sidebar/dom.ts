/** The page's elements and messages. Every text from the server goes in through textContent, never as HTML. */

export function $(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The sidebar has no #${id}`);
  return element;
}
export const button = (id: string) => $(id) as HTMLButtonElement;
export const input = (id: string) => $(id) as HTMLInputElement;
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function setText(id: string, text: string): void {
  $(id).textContent = text;
}

/** A status line: its text, and ok/bad colouring. */
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

/** A whole number typed in a number field, or undefined. */
export function wholeNumber(id: string): number | undefined {
  const value = Number(input(id).value);
  return input(id).value.trim() !== '' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
