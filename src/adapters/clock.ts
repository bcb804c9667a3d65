/** The Clock port over Date, Utilities.sleep and the spreadsheet's time zone. */
import type { Clock } from '../lookup/ports';

/** The open spreadsheet's time zone, or null (none open, or not readable in this execution). */
function spreadsheetTimeZone(): string | null {
  try {
    return SpreadsheetApp.getActiveSpreadsheet()?.getSpreadsheetTimeZone() || null;
  } catch {
    return null;
  }
}

/** "14:32" in the spreadsheet's time zone ("25 Nov 02:10" on another day), else "14:32 UTC". */
export function timeText(ms: number, now = Date.now()): string {
  const zone = spreadsheetTimeZone();
  const tz = zone ?? 'UTC';
  const sameDay =
    Utilities.formatDate(new Date(ms), tz, 'yyyyMMdd') ===
    Utilities.formatDate(new Date(now), tz, 'yyyyMMdd');
  const text = Utilities.formatDate(new Date(ms), tz, sameDay ? 'HH:mm' : 'd MMM HH:mm');
  return zone ? text : `${text} UTC`;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => Utilities.sleep(ms),
  timeText: (ms) => timeText(ms),
};

/** The day of `ms` (yyyy-MM-dd) in the open spreadsheet's time zone (UTC when it has none). */
export function spreadsheetDay(ms: number): string {
  return Utilities.formatDate(new Date(ms), spreadsheetTimeZone() ?? 'UTC', 'yyyy-MM-dd');
}
