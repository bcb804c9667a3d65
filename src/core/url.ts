/** Profile URLs and their one canonical spelling. Pure (Apps Script has no `URL` class). */
import { MAX_PROFILE_ID_LENGTH, MAX_URL_LENGTH } from './limits';

/** `error` when NETWORK_HOSTS is unusable. */
export interface NetworkHosts {
  domains: readonly string[];
  error?: string;
}

export const DEFAULT_NETWORK_HOSTS: NetworkHosts = { domains: ['linkedin.com'] };

export type ProfileInput =
  | { kind: 'empty' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'url'; sent: string; key: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const URL_PARTS = /^(https?):\/\/([^/?#]+)([^?#]*)(\?[^#]*)?(#.*)?$/i;
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}$/;
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}\.?(?::\d{1,5})?$/i;
/** Letters, combining marks and digits of any script, hyphens; `_` only occurs in member-id URLs. */
const PROFILE_ID = /^[\p{L}\p{M}\p{N}_-]+$/u;
/** `/in/ACoAA…`: the member's encoded id (Sales Navigator and API links), case-sensitive unlike a public id. */
const MEMBER_ID = /^ACoA[A-Za-z0-9_-]{20,}$/;
const ERROR_VALUE = /^#(?:N\/A|REF!|VALUE!|ERROR!|NAME\?|DIV\/0!|NUM!|NULL!)/i;
/** Text with spaces that was meant as a web address: a scheme, or a host followed by a path. */
const URL_LIKE = /^(?:[a-z][a-z0-9+.-]*:\/\/|[^\s/]+\.[a-z]{2,63}\/)/i;

/** Not profiles, by first path segment (Sales Navigator and Recruiter ids open nothing without a seat). */
const NOT_PROFILES = new Map<string, string>([
  ['company', 'a company page'],
  ['school', 'a school page'],
  ['showcase', 'a company page'],
  ['jobs', 'a job post'],
  ['job', 'a job post'],
  ['posts', 'a post'],
  ['feed', 'a post'],
  ['pulse', 'an article'],
  ['groups', 'a group'],
  ['events', 'an event'],
  ['sales', 'a Sales Navigator link'],
  ['talent', 'a Recruiter link'],
  ['pub', 'an old /pub/ profile address (open it and copy the /in/ address it leads to)'],
]);

/** NETWORK_HOSTS (`linkedin.com,linkedin.cn`, subdomains included): an unusable entry fails every URL, not ignored. */
export function parseNetworkHosts(raw: string | null | undefined): NetworkHosts {
  const entries = (raw ?? '')
    .split(',')
    .map((entry) =>
      entry
        .trim()
        .toLowerCase()
        .replace(/^https?:\/\//, '')
        .replace(/^\*\./, '')
        .replace(/^www\./, '')
        .replace(/\/+$/, ''),
    )
    .filter((entry) => entry !== '');
  if (entries.length === 0) return DEFAULT_NETWORK_HOSTS;
  const bad = entries.filter((entry) => !DOMAIN.test(entry));
  if (bad.length > 0) {
    return {
      domains: [],
      error: `the add-on's NETWORK_HOSTS setting is not a list of domains ("${bad[0]}"); its owner must fix it`,
    };
  }
  return { domains: [...new Set(entries)] };
}

const invalid = (reason: string): ProfileInput => ({ kind: 'invalid', reason });

export function isBlankCell(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** `key` names the profile whatever its spelling (de-duplication, store, claims); `sent` is the form the network shows. */
export function parseProfileInput(value: unknown, hosts: NetworkHosts): ProfileInput {
  if (isBlankCell(value)) return { kind: 'empty' };
  if (typeof value !== 'string') {
    if (value instanceof Date || Object.prototype.toString.call(value) === '[object Date]')
      return invalid('a date is not a profile URL');
    if (typeof value === 'number' || typeof value === 'boolean')
      return invalid(`${String(value)} is not a profile URL`);
    return invalid('not a profile URL');
  }
  const trimmed = value.trim();
  if (trimmed.length > MAX_URL_LENGTH)
    return invalid(`longer than ${MAX_URL_LENGTH} characters, not a profile URL`);
  if (ERROR_VALUE.test(trimmed)) return invalid(`the cell holds an error (${trimmed}), not a profile URL`);
  if (/\s/.test(trimmed))
    return invalid(URL_LIKE.test(trimmed) ? 'contains spaces, not a profile URL' : 'not a web address');
  const address = webAddress(trimmed);
  if ('reason' in address) return invalid(address.reason);
  if (hosts.error) return invalid(hosts.error);
  const domain = networkDomain(address.host, hosts.domains);
  const segments = address.path.split('/').filter((segment) => segment !== '');
  if (!domain) return invalid(`not a profile URL of ${listed(hosts.domains)}: ${shown(trimmed)}`);
  if (segments.length === 0) return invalid('a site address without a profile path');
  const first = segments[0].toLowerCase();
  const idAt = first === 'in' ? 1 : first === 'mwlite' && segments[1]?.toLowerCase() === 'in' ? 2 : -1;
  const rawId = idAt > 0 ? segments[idAt] : undefined;
  if (rawId === undefined) {
    const expected = `(a profile URL is ${domain}/in/<name>)`;
    const page = NOT_PROFILES.get(first);
    if (page) return invalid(`${page}, not a person's profile ${expected}`);
    return invalid(`not a profile URL ${expected}: ${shown(trimmed)}`);
  }
  const id = canonicalId(rawId);
  if ('reason' in id) return invalid(id.reason);
  return { kind: 'url', sent: `https://www.${domain}/in/${id.id}/`, key: `https://${domain}/in/${id.id}` };
}

function webAddress(text: string): { host: string; path: string; schemed: boolean } | { reason: string } {
  // Browsers read a backslash as a slash in http URLs.
  const slashed = text.replace(/\\/g, '/');
  const scheme = SCHEME.exec(slashed);
  if (scheme && !/^https?$/i.test(scheme[1])) return { reason: `${scheme[1]}: is not a web address` };
  const withScheme = scheme ? slashed : `https://${slashed.replace(/^\/\//, '')}`;
  const parts = URL_PARTS.exec(withScheme);
  if (!parts || !HOST.test(parts[2])) return { reason: 'not a web address' };
  return { host: parts[2].toLowerCase(), path: parts[3], schemed: scheme !== null };
}

function networkDomain(hostWithPort: string, domains: readonly string[]): string | undefined {
  const port = /:(\d+)$/.exec(hostWithPort)?.[1];
  if (port !== undefined && port !== '80' && port !== '443') return undefined;
  const host = hostWithPort.replace(/:\d+$/, '').replace(/\.$/, '');
  let best: string | undefined;
  for (const domain of domains) {
    if ((host === domain || host.endsWith(`.${domain}`)) && domain.length > (best?.length ?? 0))
      best = domain;
  }
  return best;
}

function canonicalId(raw: string): { id: string } | { reason: string } {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return { reason: `the profile name "${shown(raw)}" holds an invalid %-escape` };
  }
  if (decoded.length > MAX_PROFILE_ID_LENGTH) {
    return { reason: `a profile name is at most ${MAX_PROFILE_ID_LENGTH} characters, not a profile URL` };
  }
  if (!PROFILE_ID.test(decoded)) {
    return { reason: `the profile name "${shown(decoded)}" holds characters a profile name never has` };
  }
  // One spelling of accented letters (NFC, as the web writes them), then one case.
  const normalised = decoded.normalize('NFC');
  const cased = MEMBER_ID.test(normalised) ? normalised : normalised.toLowerCase();
  return { id: encodeURIComponent(cased) };
}

function listed(domains: readonly string[]): string {
  return domains.length === 1
    ? domains[0]
    : `${domains.slice(0, -1).join(', ')} or ${domains[domains.length - 1]}`;
}

function shown(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** A web address of any site: a first row holding `https://example.com/about` is data (INVALID_URL), not a header. */
export function looksLikeUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const trimmed = value.trim();
  if (trimmed === '' || /\s/.test(trimmed) || trimmed.length > MAX_URL_LENGTH) return false;
  const address = webAddress(trimmed);
  return !('reason' in address) && (address.schemed || address.path.replace(/\/+$/, '') !== '');
}
