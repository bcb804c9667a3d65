const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The first millisecond of `now`'s day as `dayOf` tells days: a binary search (about 28 calls of `dayOf`). */
export function startOfDay(now: number, dayOf: (ms: number) => string): number {
  const today = dayOf(now);
  let before = now - 48 * 3600 * 1000; // a time of an earlier day, whatever the zone (offsets stay within 14 h)
  let within = now;
  while (within - before > 1) {
    const middle = before + Math.floor((within - before) / 2);
    if (dayOf(middle) === today) within = middle;
    else before = middle;
  }
  return within;
}

/** "27 Nov" for the day "2026-11-27" (a day the add-on counts: the spreadsheet's); the text itself otherwise. */
export function dayText(day: string): string {
  const [, month, date] = /^\d{4}-(\d{2})-(\d{2})$/.exec(day) ?? [];
  const name = MONTHS[Number(month) - 1];
  return name ? `${Number(date)} ${name}` : day;
}
