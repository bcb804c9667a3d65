/** How Sheets reads what is typed into a cell, and what a cell shows. */
import { type Cell, type CellValue, PLAIN_TEXT } from './spreadsheet';

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const GROUPED = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/;
const PERCENT = /^([+-]?(\d+(\.\d*)?|\.\d+))\s?%$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * How Sheets reads a string that is entered in a cell, by a user or by Range.setValue(s) (which parse strings
 * like the Sheets API's USER_ENTERED input option): numbers, TRUE/FALSE, percentages and ISO dates become
 * typed values, a leading apostrophe forces text. Unless the cell is formatted as plain text (`@`).
 */
export function parseEntered(
  text: string,
  format: string | undefined,
): { value: CellValue; format?: string } {
  if (format === PLAIN_TEXT) return { value: text };
  if (text.startsWith("'")) return { value: text.slice(1) };
  const trimmed = text.trim();
  if (NUMBER.test(trimmed)) return { value: Number(trimmed) };
  if (GROUPED.test(trimmed))
    return { value: Number(trimmed.replace(/,/g, '')), format: format ?? '#,##0.###' };
  const percent = PERCENT.exec(trimmed);
  if (percent) return { value: Number(percent[1]) / 100, format: format ?? '0%' };
  if (/^(true|false)$/i.test(trimmed)) return { value: trimmed.toLowerCase() === 'true' };
  const iso = ISO_DATE.exec(trimmed);
  if (iso) {
    const date = new Date(Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3])));
    if (date.getUTCDate() === Number(iso[3])) return { value: date, format: format ?? 'yyyy-mm-dd' };
  }
  return { value: text };
}

/** What a cell shows (Range.getDisplayValues): a small subset of Sheets' number formats. */
export function displayValue(cell: Cell | undefined, timeZone: string): string {
  if (!cell) return '';
  const { value, format } = cell;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return formatDateForDisplay(value, format, timeZone);
  if (typeof value === 'number') {
    if (!format || format === 'General' || format === PLAIN_TEXT) return formatGeneral(value);
    const percent = format.endsWith('%');
    const n = percent ? value * 100 : value;
    const decimals = /\.(0+)/.exec(format)?.[1].length ?? 0;
    const grouped = format.includes(',');
    const text = n.toLocaleString('en-US', {
      minimumFractionDigits: decimals,
      maximumFractionDigits: format.includes('#') && !/\.0/.test(format) ? 3 : decimals,
      useGrouping: grouped,
    });
    return percent ? `${text}%` : text;
  }
  return value;
}

function formatGeneral(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  const text = String(Number(value.toPrecision(10)));
  return text;
}

function formatDateForDisplay(date: Date, format: string | undefined, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  const pad = (s: string) => s.padStart(2, '0');
  if (format === 'yyyy-mm-dd') return `${parts.year}-${pad(parts.month)}-${pad(parts.day)}`;
  const day = `${parts.month}/${parts.day}/${parts.year}`;
  const midnight = parts.hour === '00' || parts.hour === '0';
  if (midnight && parts.minute === '00' && parts.second === '00') return day;
  return `${day} ${Number(parts.hour)}:${parts.minute}:${parts.second}`;
}
