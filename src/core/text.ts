/** Wording shared by every message: counts with the right noun, and sentences that end with one full stop. Pure. */

/** "1 credit", "2 credits", "0 rows". */
export function countText(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The text without its closing full stop(s), to go inside a sentence that adds its own. */
export function withoutStop(text: string): string {
  return text.trim().replace(/[.\s]+$/, '');
}
