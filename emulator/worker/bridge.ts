/**
 * The worker realm's helpers the runtime calls for what needs Node (hashes, base64, text encodings, sleeping,
 * date formatting). Their results are plain data, imported into the execution's realm by the runtime.
 */
import crypto from 'node:crypto';
import util from 'node:util';
import type { ByteSource } from '../protocol';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Apps Script's bytes are signed (-128..127). */
export function toSigned(bytes: Uint8Array): number[] {
  return Array.from(bytes, (b) => (b > 127 ? b - 256 : b));
}

export function toBuffer(data: ByteSource | unknown): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (data instanceof Uint8Array) return Buffer.from(data);
  if (Array.isArray(data)) return Buffer.from(data.map((b) => Number(b) & 0xff));
  return Buffer.from(String(data), 'utf8');
}

const DIGESTS: Record<string, string> = {
  MD5: 'md5',
  SHA_1: 'sha1',
  SHA_256: 'sha256',
  SHA_384: 'sha384',
  SHA_512: 'sha512',
};

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function pad(n: number | string, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Utilities.formatDate: the common SimpleDateFormat letters. */
export function formatDate(ms: number, timeZone: string, pattern: string): string {
  const date = new Date(ms);
  const parts: Record<string, string> = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'long',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  const offset = (parts.timeZoneName || 'GMT').replace('GMT', '') || '+00:00';
  const hour = Number(parts.hour) % 24;
  const month = MONTHS[Number(parts.month) - 1];
  const values: Record<string, string> = {
    yyyy: parts.year,
    yy: String(parts.year).slice(-2),
    MMMM: month,
    MMM: month.slice(0, 3),
    MM: pad(parts.month),
    M: String(Number(parts.month)),
    dd: pad(parts.day),
    d: String(Number(parts.day)),
    HH: pad(hour),
    H: String(hour),
    hh: pad(hour % 12 || 12),
    h: String(hour % 12 || 12),
    mm: pad(parts.minute),
    m: String(Number(parts.minute)),
    ss: pad(parts.second),
    s: String(Number(parts.second)),
    SSS: pad(date.getUTCMilliseconds(), 3),
    a: hour < 12 ? 'AM' : 'PM',
    EEEE: parts.weekday,
    EEE: String(parts.weekday).slice(0, 3),
    XXX: offset === '+00:00' ? 'Z' : offset,
    Z: offset.replace(':', ''),
    z: timeZone === 'Etc/UTC' || timeZone === 'UTC' ? 'UTC' : `GMT${offset}`,
  };
  return String(pattern).replace(
    /'([^']*)'|yyyy|yy|MMMM|MMM|MM|M|dd|d|HH|H|hh|h|mm|m|ss|s|SSS|a|EEEE|EEE|XXX|Z|z/g,
    (token: string, quoted: string | undefined) => (quoted !== undefined ? quoted || "'" : values[token]),
  );
}

/** The helpers that need no RPC (the thread adds rpc, now, count and log). */
export const nodeHelpers = {
  sleep(ms: number): void {
    Atomics.wait(sleeper, 0, 0, ms);
  },
  format(args: unknown[]): string {
    return util.format(...args);
  },
  digest(algorithm: string, data: ByteSource, hmacKey?: ByteSource): number[] | null {
    const name = DIGESTS[algorithm];
    if (!name) return null;
    const hash = hmacKey === undefined ? crypto.createHash(name) : crypto.createHmac(name, toBuffer(hmacKey));
    return toSigned(hash.update(toBuffer(data)).digest());
  },
  base64Encode(data: ByteSource, webSafe: boolean): string {
    const text = toBuffer(data).toString('base64');
    return webSafe ? text.replace(/\+/g, '-').replace(/\//g, '_') : text;
  },
  base64Decode(text: string, webSafe: boolean): number[] | null {
    const normal = webSafe ? String(text).replace(/-/g, '+').replace(/_/g, '/') : String(text);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal.replace(/\s/g, ''))) return null;
    return toSigned(Buffer.from(normal, 'base64'));
  },
  bytes(data: ByteSource): number[] {
    return toSigned(toBuffer(data));
  },
  text(data: ByteSource, charset?: string): string {
    const encoding = /^(us-ascii|ascii)$/i.test(charset || '') ? 'latin1' : 'utf8';
    return toBuffer(data).toString(encoding);
  },
  uuid(): string {
    return crypto.randomUUID();
  },
  formatDate,
};
