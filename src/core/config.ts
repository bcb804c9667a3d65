/** The add-on owner's configuration (script properties) and the service's base URL: defaults, validation. Pure. */

import type { NetworkHosts } from './url';

export type EndpointResult = { ok: true; endpoint: string; base: string } | { ok: false; message: string };

const HTTPS_BASE = /^https:\/\/[a-z0-9.-]+(?::\d+)?(?:\/[^\s?#]*)?$/i;
// Plain http is accepted only for the loopback sandbox service.
const LOOPBACK_BASE = /^http:\/\/(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])(?::\d+)?(?:\/[^\s?#]*)?$/i;

/** `<base>/network_finder`, tolerating a base with or without a trailing slash. */
export function resolveEndpoint(base: string | null | undefined): EndpointResult {
  const trimmed = (base ?? '').trim();
  if (trimmed === '') {
    return {
      ok: false,
      message:
        'The add-on is not configured: no service address (API_BASE_URL) is set. The add-on owner must set it at build time or as the script property API_BASE_URL.',
    };
  }
  if (!HTTPS_BASE.test(trimmed) && !LOOPBACK_BASE.test(trimmed)) {
    return {
      ok: false,
      message: `The add-on is misconfigured: the service address "${trimmed}" must be an https:// URL (plain http only on 127.0.0.1 or localhost).`,
    };
  }
  const normalisedBase = trimmed.replace(/\/+$/, '');
  return { ok: true, base: `${normalisedBase}/`, endpoint: `${normalisedBase}/network_finder` };
}

/**
 * The manifest's urlFetchWhitelist for a build's base URL: its https host, or none for the loopback sandbox (the
 * allowlist takes https prefixes only: developers.google.com/apps-script/manifest/allowlist-url).
 */
export function allowlistFor(base: string): string[] | null {
  const https = /^https:\/\/([^/?#]+)\//i.exec(base);
  return https ? [`https://${https[1].toLowerCase()}/`] : null;
}

/**
 * Whether Apps Script fetches `url` under the manifest's allowlist (null: the manifest has none, any URL). The
 * rules of the allowlist page: a URL matches a prefix when it is the prefix or lies below it (`/api` matches
 * `/api`, `/api/x`, `/api?x`, not `/apix`); hosts compare without case, paths with; `https://*.host/` matches
 * subdomains. Plain http on loopback is the local sandbox, which the emulator (like this check) lets through.
 */
export function allowedByAllowlist(url: string, allowlist: readonly string[] | null): boolean {
  if (allowlist === null) return true;
  if (LOOPBACK_BASE.test(url)) return true;
  const target = /^https:\/\/([^/?#]+)(.*)$/i.exec(url);
  if (!target) return false;
  const host = target[1].toLowerCase();
  const path = target[2] || '/';
  return allowlist.some((prefix) => {
    const entry = /^https:\/\/(\*\.)?([^/?#]+)(\/.*)?$/i.exec(prefix);
    if (!entry) return false;
    const base = entry[2].toLowerCase();
    if (entry[1] ? !host.endsWith(`.${base}`) : host !== base) return false;
    const prefixPath = entry[3] ?? '/';
    if (!path.startsWith(prefixPath)) return false;
    const rest = path.slice(prefixPath.length);
    return rest === '' || prefixPath.endsWith('/') || /^[/?#]/.test(rest);
  });
}

/**
 * The base URL in effect: the script property API_BASE_URL when set, else the build's. An override the manifest's
 * allowlist (fixed at build time) does not cover is refused here, before any request: Apps Script would refuse
 * every fetch to it, which would read as "could not be reached" and be retried.
 */
export function configuredEndpoint(
  override: string | null | undefined,
  buildBase: string,
  allowlist: readonly string[] | null,
): EndpointResult {
  if (!override || override.trim() === '') return resolveEndpoint(buildBase);
  const resolved = resolveEndpoint(override);
  if (!resolved.ok || allowedByAllowlist(resolved.endpoint, allowlist)) return resolved;
  return {
    ok: false,
    message: `The add-on is misconfigured: the script property API_BASE_URL ("${override.trim()}") is outside the add-on's URL allowlist (${(allowlist ?? []).join(', ')}), so Apps Script would refuse every request. Remove the property, or build and push the add-on for that address (npm run clasp:push with API_BASE_URL set).`,
  };
}

/** The add-on owner's configuration in script properties (read by src/adapters/scriptConfig.ts). */
export interface ScriptConfig {
  endpoint: EndpointResult;
  stepBudgetMs?: number;
  batchSize?: number;
  concurrency?: number;
  /** FETCH_MAX_CONCURRENCY: the adaptive batch size's cap (src/lookup/pace.ts). */
  maxConcurrency: number;
  /** BULK_SLICES: slices of one bulk run at once, at most (src/core/limits.ts MAX_SLICES bounds it). */
  slices?: number;
  /** FINDEMAIL_BUDGET_MS: lowers =FINDEMAIL's work budget (tests and operators). */
  findEmailBudgetMs?: number;
  /** NETWORK_HOSTS: the network's domains, whose profile URLs are looked up (src/core/url.ts). */
  networkHosts: NetworkHosts;
}
