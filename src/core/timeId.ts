/** A time and a random part (base 36): unique within one spreadsheet, sortable by time; `spread` bounds the random part. */
export function timeId(now: number, spread = 1e9): string {
  return now.toString(36) + Math.floor(Math.random() * spread).toString(36);
}
