/** A day as a person reads it. */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "27 Nov" for the day "2026-11-27" (a day the add-on counts: the spreadsheet's); the text itself otherwise. */
export function dayText(day: string): string {
  const [, month, date] = /^\d{4}-(\d{2})-(\d{2})$/.exec(day) ?? [];
  const name = MONTHS[Number(month) - 1];
  return name ? `${Number(date)} ${name}` : day;
}
