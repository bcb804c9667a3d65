/**
 * Deterministic lookup results for the sandbox service: the answer depends only on the profile URL.
 *
 * URL rules (tests elsewhere build URLs on purpose with them):
 * - A profile URL is `[scheme://]host/in/<slug>[/more]`; any host is accepted. Normalised form (the key of
 *   `chargesByUrl`, same as the add-on's cache key): `https://` + lower-case host without `www.` + path without
 *   trailing slashes; query string and fragment dropped. So `http://WWW.Network.com/in/jane-doe/?x=1#y` and
 *   `https://network.com/in/jane-doe` are the same profile.
 * - The slug (first path segment after `/in/`) is split on `-` into tokens (compared lower-case). Name tokens are
 *   the tokens made of letters only that are not markers; the name is them capitalised:
 *   `jane-doe-12ab` -> "Jane Doe", `mary-ann-smith-7` -> "Mary Ann Smith".
 * - Markers, first match wins:
 *   1. path not `/in/<slug>`, unparsable URL, or token `anonymous` -> unprocessable (422), partial profile
 *      `{ network_url, input_url }` without a name;
 *   2. no name token (`/in/12345`, `/in/noemail`) -> unprocessable without a name;
 *   3. token `nodomain` -> unprocessable, the partial profile has the name;
 *   4. token `noemail` -> not found (200, `email_address: null`);
 *   5. token `formula` -> found, but the address is a spreadsheet formula (injection test);
 *   6. otherwise found: `first.last@<domain>` (`first@<domain>` for one token, accents folded), the domain
 *      picked from DOMAINS by an FNV-1a hash of the normalised URL; globex.test and hooli.test are catch-all.
 * - Tokens `flaky` and `broken` do not change the result; the service turns them into 500s (see service.ts).
 * - Odd answers, decided by how the slug begins (after the markers of rule 1; a 200, one credit charged):
 *   - `huge-name-…` -> found as rule 6, but the profile's `name` is HUGE_NAME_LENGTH (10 KB) characters: the
 *     name repeated (`/in/huge-name-jane-doe`: "Huge Name Jane Doe Huge Name Jane Doe …");
 *   - `odd-200-empty-…` -> `{}`, a 200 without any field of the contract;
 *   - `odd-200-nostatus-…` -> the found body of rule 6 without its `status` field;
 *   - `lost-answer-…` -> looked up and charged, then the connection is reset before the answer (the service's
 *     fault `lost`, see service.ts).
 * - `updated_at`, the headline and the company derive from the same hash.
 */

export const UNPROCESSABLE_MESSAGE = 'Unable to extract the name or the domain from the profile';
export const FORMULA_EMAIL = '=HYPERLINK("http://evil.test","click")';
export const MARKERS = ['noemail', 'anonymous', 'nodomain', 'formula', 'flaky', 'broken'] as const;
/** The length of the name a `huge-name-…` profile answers with: over a property value's 9 KB by itself. */
export const HUGE_NAME_LENGTH = 10 * 1024;
/** Slug beginnings of the odd answers (see the header). */
export const ODD_SLUGS = {
  hugeName: 'huge-name-',
  empty200: 'odd-200-empty-',
  noStatus200: 'odd-200-nostatus-',
  lostAnswer: 'lost-answer-',
} as const;

/** The slug begins as one of the odd answers (ODD_SLUGS). */
export function slugBegins(input: string, beginning: string): boolean {
  const parsed = parseProfileUrl(input);
  return parsed !== undefined && slugText(parsed.tokens).startsWith(beginning);
}
export type Marker = (typeof MARKERS)[number];

export interface CompanyDomain {
  domain: string;
  company: string;
  catchAll: boolean;
}

export const DOMAINS: readonly CompanyDomain[] = [
  { domain: 'acme-corp.test', company: 'Acme Corp', catchAll: false },
  { domain: 'globex.test', company: 'Globex Corporation', catchAll: true },
  { domain: 'initech.test', company: 'Initech', catchAll: false },
  { domain: 'umbrella-labs.test', company: 'Umbrella Labs', catchAll: false },
  { domain: 'hooli.test', company: 'Hooli', catchAll: true },
  { domain: 'stark-industries.test', company: 'Stark Industries', catchAll: false },
  { domain: 'wayne-enterprises.test', company: 'Wayne Enterprises', catchAll: false },
  { domain: 'vandelay.test', company: 'Vandelay Industries', catchAll: false },
];

const ROLES = [
  'Software Engineer',
  'Product Manager',
  'Sales Director',
  'Data Analyst',
  'Marketing Lead',
  'Head of Operations',
];
// Offsets in minutes, so that `updated_at` is not always UTC.
const OFFSETS = [0, 60, 120, -300, 330, -480, 540];

export interface PartialProfile {
  network_url: string;
  input_url: string;
  name?: string;
}

export type Prediction =
  | {
      kind: 'found';
      email: string;
      emailStatus: 'VALID';
      accountType: 'professional';
      isCatchAll: boolean;
      name: string;
      domain: string;
    }
  | { kind: 'not_found'; name: string }
  | { kind: 'unprocessable'; message: string; partialProfile: PartialProfile }
  /** A 200 whose body is not the contract's success shape (`odd-200-…` slugs). */
  | { kind: 'off_contract'; body: OffContractBody };

export interface ProfileRecord {
  network_url: string;
  input_url: string;
  name: string;
  updated_at: string;
  headline: string;
  company: string;
}

export interface SuccessBody {
  status: 'success';
  network_url: string;
  email_address: string | null;
  email_status: 'VALID' | null;
  account_type: 'professional' | null;
  is_catch_all: boolean | null;
  profile: ProfileRecord;
}

export interface UnprocessableBody {
  status: 'unprocessable';
  message: string;
  profile: PartialProfile;
}

/** The body of an odd 200: no `status` (tell it from a SuccessBody by `body.status === 'success'`). */
export interface OffContractBody {
  status?: undefined;
  [field: string]: unknown;
}

export type LookupResponse =
  | { status: 200; body: SuccessBody | OffContractBody }
  | { status: 422; body: UnprocessableBody };

export interface ParsedProfileUrl {
  normalized: string;
  host: string;
  path: string;
  /** Lower-case slug tokens; empty when the path is not `/in/<slug>`. */
  tokens: string[];
}

/** The slug's tokens joined by `-` (lower-case, decoded), to match the odd answers' beginnings. */
function slugText(tokens: string[]): string {
  return `${tokens.join('-')}-`;
}

const URL_PARTS = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/?#\s]+)([^?#\s]*)(?:[?#].*)?$/i;

/** Parses and normalises a profile URL; undefined when there is no host or the URL holds white space. */
export function parseProfileUrl(input: string): ParsedProfileUrl | undefined {
  const parts = URL_PARTS.exec(input.trim());
  if (!parts) return undefined;
  const host = parts[2].toLowerCase().replace(/^www\./, '');
  if (host === '' || host.includes('@')) return undefined;
  const path = parts[3].replace(/\/+$/, '');
  const slug = /^\/in\/([^/]+)/.exec(path)?.[1] ?? '';
  return { normalized: `https://${host}${path}`, host, path, tokens: slugTokens(slug) };
}

/** The normalised form of a profile URL (the input, trimmed, when it cannot be parsed). */
export function normalizeProfileUrl(input: string): string {
  return parseProfileUrl(input)?.normalized ?? input.trim();
}

/** The markers present in the URL's slug. */
export function profileMarkers(input: string): Set<Marker> {
  const tokens = parseProfileUrl(input)?.tokens ?? [];
  return new Set(MARKERS.filter((marker) => tokens.includes(marker)));
}

function slugTokens(slug: string): string[] {
  let decoded = slug;
  try {
    decoded = decodeURIComponent(slug);
  } catch {
    // A malformed escape: keep the raw slug.
  }
  return decoded
    .toLowerCase()
    .split('-')
    .filter((token) => token !== '');
}

function nameTokens(tokens: string[]): string[] {
  return tokens.filter((token) => /^\p{L}+$/u.test(token) && !(MARKERS as readonly string[]).includes(token));
}

function capitalise(token: string): string {
  return token.charAt(0).toUpperCase() + token.slice(1);
}

function foldAscii(token: string): string {
  return token
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
}

/** FNV-1a, 32 bits, over UTF-16 code units. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

function updatedAt(hash: number): string {
  const instant = Date.UTC(2024, 0, 1) + ((hash >>> 3) % (366 * 24 * 60)) * 60_000;
  const offset = OFFSETS[(hash >>> 16) % OFFSETS.length];
  const local = new Date(instant + offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

interface Derivation {
  prediction: Prediction;
  normalized: string;
  hash: number;
  company: CompanyDomain;
}

function derive(networkUrl: string): Derivation {
  const parsed = parseProfileUrl(networkUrl);
  const normalized = parsed?.normalized ?? networkUrl.trim();
  const hash = fnv1a(normalized);
  const company = DOMAINS[hash % DOMAINS.length];
  const unprocessable = (name?: string): Derivation => ({
    prediction: {
      kind: 'unprocessable',
      message: UNPROCESSABLE_MESSAGE,
      partialProfile: {
        network_url: normalized,
        input_url: networkUrl,
        ...(name === undefined ? {} : { name }),
      },
    },
    normalized,
    hash,
    company,
  });
  const tokens = parsed?.tokens ?? [];
  if (tokens.length === 0 || tokens.includes('anonymous')) return unprocessable();
  const names = nameTokens(tokens);
  if (names.length === 0) return unprocessable();
  const name = names.map(capitalise).join(' ');
  if (tokens.includes('nodomain')) return unprocessable(name);
  const slug = slugText(tokens);
  if (slug.startsWith(ODD_SLUGS.empty200)) {
    return { prediction: { kind: 'off_contract', body: {} }, normalized, hash, company };
  }
  if (tokens.includes('noemail'))
    return { prediction: { kind: 'not_found', name }, normalized, hash, company };
  const localParts = [foldAscii(names[0]), names.length > 1 ? foldAscii(names[names.length - 1]) : ''].filter(
    (part) => part !== '',
  );
  const local = localParts.length > 0 ? localParts.join('.') : 'contact';
  const email = tokens.includes('formula') ? FORMULA_EMAIL : `${local}@${company.domain}`;
  const found: Prediction = {
    kind: 'found',
    email,
    emailStatus: 'VALID',
    accountType: 'professional',
    isCatchAll: company.catchAll,
    name: slug.startsWith(ODD_SLUGS.hugeName)
      ? `${name} `.repeat(HUGE_NAME_LENGTH).slice(0, HUGE_NAME_LENGTH)
      : name,
    domain: company.domain,
  };
  if (slug.startsWith(ODD_SLUGS.noStatus200)) {
    const { status: _status, ...body } = foundBody(found, normalized, networkUrl, hash, company);
    return { prediction: { kind: 'off_contract', body }, normalized, hash, company };
  }
  return { prediction: found, normalized, hash, company };
}

/** What the sandbox answers for this `network_url` (barring faults, credits and key problems). */
export function predictLookup(networkUrl: string): Prediction {
  return derive(networkUrl).prediction;
}

function profileRecord(
  name: string,
  normalized: string,
  networkUrl: string,
  hash: number,
  company: CompanyDomain,
): ProfileRecord {
  return {
    network_url: normalized,
    input_url: networkUrl,
    name,
    updated_at: updatedAt(hash),
    headline: `${ROLES[(hash >>> 8) % ROLES.length]} at ${company.company}`,
    company: company.company,
  };
}

function foundBody(
  prediction: Extract<Prediction, { kind: 'found' }>,
  normalized: string,
  networkUrl: string,
  hash: number,
  company: CompanyDomain,
): SuccessBody {
  return {
    status: 'success',
    network_url: normalized,
    email_address: prediction.email,
    email_status: prediction.emailStatus,
    account_type: prediction.accountType,
    is_catch_all: prediction.isCatchAll,
    profile: profileRecord(prediction.name, normalized, networkUrl, hash, company),
  };
}

/** The full response the sandbox gives for this `network_url` (status and JSON body). */
export function buildLookupResponse(networkUrl: string): LookupResponse {
  const { prediction, normalized, hash, company } = derive(networkUrl);
  if (prediction.kind === 'unprocessable') {
    return {
      status: 422,
      body: { status: 'unprocessable', message: prediction.message, profile: prediction.partialProfile },
    };
  }
  if (prediction.kind === 'off_contract') return { status: 200, body: prediction.body };
  if (prediction.kind === 'not_found') {
    return {
      status: 200,
      body: {
        status: 'success',
        network_url: normalized,
        email_address: null,
        email_status: null,
        account_type: null,
        is_catch_all: null,
        profile: profileRecord(prediction.name, normalized, networkUrl, hash, company),
      },
    };
  }
  return { status: 200, body: foundBody(prediction, normalized, networkUrl, hash, company) };
}
