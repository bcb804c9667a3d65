/**
 * Profile URL recognition and the one canonical spelling of a profile. Pure: no Apps Script or Node globals (the
 * `URL` class does not exist in Apps Script).
 *
 * The network behind the contract's neutral word "network" is the one at linkedin.com. Its member profiles live at
 * `https://www.linkedin.com/in/<public-id>/` (public id: the "custom URL" of the member, letters and digits in any
 * script and hyphens, at most 100 characters, case-insensitive). Accepted spellings of that one profile:
 * - any subdomain of a network domain: `www.`, country subdomains (`uk.`, `de.`, `fr.` …), mobile `m.`;
 * - http or https or no scheme, upper or lower case host, a trailing dot or a default port (80, 443);
 * - `/mwlite/in/<id>` (the lightweight mobile site);
 * - the id in any case, percent-encoded or not (`/in/Jos%C3%A9-M` ≡ `/in/josé-m`);
 * - anything after the id: a language segment (`/in/<id>/en`) or a page of the profile (`/details/experience`,
 *   `/overlay/contact-info`, `/recent-activity/all`), a query (`?originalSubdomain=uk`) and a fragment;
 * - backslashes for slashes (browsers read `\` as `/` in http URLs).
 * Not profiles, rejected for free with the reason: company, school and showcase pages, job posts, posts, groups,
 * events, Sales Navigator and Recruiter links (`/sales/…`, `/talent/…`: their ids open nothing without a seat), and
 * the retired `/pub/<name>/x/y/z` addresses (the network redirects them to an `/in/` address whose id cannot be
 * derived from the old one: the user must open it and copy the new address).
 */
import { MAX_PROFILE_ID_LENGTH, MAX_URL_LENGTH } from './limits';

/** The network's domains as configured (script property NETWORK_HOSTS); `error` when the setting is unusable. */
export interface NetworkHosts {
  domains: readonly string[];
  error?: string;
}

export const DEFAULT_NETWORK_DOMAIN = 'linkedin.com';
export const DEFAULT_NETWORK_HOSTS: NetworkHosts = { domains: [DEFAULT_NETWORK_DOMAIN] };

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
/**
 * `/in/ACoAA…`: a profile addressed by the member's encoded id (Sales Navigator and API links). Unlike a public id,
 * it is case-sensitive, so its case is kept.
 */
const MEMBER_ID = /^ACoA[A-Za-z0-9_-]{20,}$/;
const ERROR_VALUE = /^#(?:N\/A|REF!|VALUE!|ERROR!|NAME\?|DIV\/0!|NUM!|NULL!)/i;
/** Text with spaces that was meant as a web address: a scheme, or a host followed by a path. */
const URL_LIKE = /^(?:[a-z][a-z0-9+.-]*:\/\/|[^\s/]+\.[a-z]{2,63}\/)/i;

/** Pages of the network that are not a person's profile: the first path segment -> what it is. */
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

/**
 * Reads the NETWORK_HOSTS script property: a comma-separated list of domains (`linkedin.com,linkedin.cn`); every
 * subdomain of each is accepted. Unset or blank: the network's domain. A leading `www.`, a scheme or a trailing
 * slash is ignored. An unusable entry makes every URL INVALID_URL with the reason (nothing is sent), not silently
 * ignored.
 */
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

/** A cell with nothing in it (or only spaces): not a row of a run, whatever the network's domains. */
export function isBlankCell(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/**
 * Classifies one cell value. For a profile, `key` identifies it whatever its spelling (de-duplication, result store,
 * claims): `https://<network domain>/in/<id>`, the id lower-case and percent-encoded (UTF-8, upper-case hex).
 * `sent` is what the service gets: the canonical address on the domain it was typed on,
 * `https://www.<network domain>/in/<id>/`, the form the network itself shows.
 */
export function parseProfileInput(value: unknown, hosts: NetworkHosts): ProfileInput {
  if (isBlankCell(value)) return { kind: 'empty' };
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
  if (trimmed.length > MAX_URL_LENGTH) {
    return { kind: 'invalid', reason: `longer than ${MAX_URL_LENGTH} characters, not a profile URL` };
  }
  if (ERROR_VALUE.test(trimmed)) {
    return { kind: 'invalid', reason: `the cell holds an error (${trimmed}), not a profile URL` };
  }
  if (/\s/.test(trimmed)) {
    return {
      kind: 'invalid',
      reason: URL_LIKE.test(trimmed) ? 'contains spaces, not a profile URL' : 'not a web address',
    };
  }
  const address = webAddress(trimmed);
  if ('reason' in address) return { kind: 'invalid', reason: address.reason };
  if (hosts.error) return { kind: 'invalid', reason: hosts.error };
  const domain = networkDomain(address.host, hosts.domains);
  const segments = address.path.split('/').filter((segment) => segment !== '');
  if (!domain)
    return { kind: 'invalid', reason: `not a profile URL of ${listed(hosts.domains)}: ${shown(trimmed)}` };
  if (segments.length === 0) return { kind: 'invalid', reason: 'a site address without a profile path' };
  const first = segments[0].toLowerCase();
  const idAt = first === 'in' ? 1 : first === 'mwlite' && segments[1]?.toLowerCase() === 'in' ? 2 : -1;
  const rawId = idAt > 0 ? segments[idAt] : undefined;
  if (rawId === undefined) {
    const expected = `(a profile URL is ${domain}/in/<name>)`;
    const page = NOT_PROFILES.get(first);
    return page
      ? { kind: 'invalid', reason: `${page}, not a person's profile ${expected}` }
      : { kind: 'invalid', reason: `not a profile URL ${expected}: ${shown(trimmed)}` };
  }
  const id = canonicalId(rawId);
  if ('reason' in id) return { kind: 'invalid', reason: id.reason };
  return { kind: 'url', sent: `https://www.${domain}/in/${id.id}/`, key: `https://${domain}/in/${id.id}` };
}

/** Scheme, host and path of a web address (http or https; no scheme means https). */
function webAddress(text: string): { host: string; path: string; schemed: boolean } | { reason: string } {
  // Browsers read a backslash as a slash in http URLs; the query and fragment are dropped anyway.
  const slashed = text.replace(/\\/g, '/');
  const scheme = SCHEME.exec(slashed);
  if (scheme && !/^https?$/i.test(scheme[1])) return { reason: `${scheme[1]}: is not a web address` };
  const withScheme = scheme ? slashed : `https://${slashed.replace(/^\/\//, '')}`;
  const parts = URL_PARTS.exec(withScheme);
  if (!parts || !HOST.test(parts[2])) return { reason: 'not a web address' };
  return { host: parts[2].toLowerCase(), path: parts[3], schemed: scheme !== null };
}

/** The configured domain this host belongs to (the longest that matches), or undefined. */
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

/** The id decoded, checked, lower-cased (member ids keep their case) and percent-encoded again. */
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

/** A piece of the user's text quoted in a reason, kept short. */
function shown(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/**
 * True when a cell's text looks like a web address, whatever its site (a header cell is text that does not): a
 * first row holding `https://example.com/about` is data to mark INVALID_URL, not a title.
 */
export function looksLikeUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const trimmed = value.trim();
  if (trimmed === '' || /\s/.test(trimmed) || trimmed.length > MAX_URL_LENGTH) return false;
  const address = webAddress(trimmed);
  return !('reason' in address) && (address.schemed || address.path.replace(/\/+$/, '') !== '');
}
