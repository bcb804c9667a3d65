/** Profile URL checks and normalisation. Pure: no Apps Script or Node globals (the `URL` class does not exist in Apps Script). */

export const MAX_URL_LENGTH = 2048;

export type ProfileInput =
  | { kind: 'empty' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'url'; sent: string; key: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const URL_PARTS = /^(https?):\/\/([^/?#]+)([^?#]*)(\?[^#]*)?(#.*)?$/i;
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}(?::\d{1,5})?$|^(?:localhost|127(?:\.\d{1,3}){3})(?::\d{1,5})?$/i;

/**
 * Classifies one cell value. `sent` is the trimmed input as the user wrote it (what the service gets);
 * `key` is the normalised form used for de-duplication and caching: https, lower-case host without `www.`,
 * no query string, fragment or trailing slash.
 */
export function parseProfileInput(value: unknown): ProfileInput {
  if (value === null || value === undefined) return { kind: 'empty' };
  if (typeof value !== 'string') {
    if (value instanceof Date || Object.prototype.toString.call(value) === '[object Date]') {
      return { kind: 'invalid', reason: 'a date is not a profile URL' };
    }
    if (typeof value === 'number' || typeof value === 'boolean') {
      return { kind: 'invalid', reason: `${String(value)} is not a profile URL` };
    }
    return { kind: 'invalid', reason: 'not a profile URL' };
  }
  const trimmed = value.trim();
  if (trimmed === '') return { kind: 'empty' };
  if (trimmed.length > MAX_URL_LENGTH) {
    return { kind: 'invalid', reason: `longer than ${MAX_URL_LENGTH} characters, not a profile URL` };
  }
  if (/^#(?:N\/A|REF!|VALUE!|ERROR!|NAME\?|DIV\/0!|NUM!|NULL!)/i.test(trimmed)) {
    return { kind: 'invalid', reason: `the cell holds an error (${trimmed}), not a profile URL` };
  }
  if (/\s/.test(trimmed)) return { kind: 'invalid', reason: 'contains spaces, not a profile URL' };
  const scheme = SCHEME.exec(trimmed);
  if (scheme && !/^https?$/i.test(scheme[1])) {
    return { kind: 'invalid', reason: `${scheme[1]}: is not a web address` };
  }
  const withScheme = scheme ? trimmed : `https://${trimmed}`;
  const parts = URL_PARTS.exec(withScheme);
  if (!parts || !HOST.test(parts[2])) return { kind: 'invalid', reason: 'not a web address' };
  const host = parts[2].toLowerCase().replace(/^www\./, '');
  const path = parts[3].replace(/\/+$/, '');
  if (path === '') return { kind: 'invalid', reason: 'a site address without a profile path' };
  return { kind: 'url', sent: trimmed, key: `https://${host}${path}` };
}

/** True when a cell's text looks like a URL (used to tell a header cell from data). */
export function looksLikeUrl(value: unknown): boolean {
  return typeof value === 'string' && parseProfileInput(value).kind === 'url' && /[./]/.test(value);
}
