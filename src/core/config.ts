/** The add-on owner's configuration (script properties) and the service's base URL. Pure. */
import type { NetworkHosts } from './url';

export type EndpointResult = { ok: true; endpoint: string; base: string } | { ok: false; message: string };

const HTTPS_BASE = /^https:\/\/[a-z0-9.-]+(?::\d+)?(?:\/[^\s?#]*)?$/i;
// Plain http only for the loopback sandbox.
const LOOPBACK_BASE = /^http:\/\/(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])(?::\d+)?(?:\/[^\s?#]*)?$/i;

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

/** The manifest's urlFetchWhitelist: https prefixes only (apps-script/manifest/allowlist-url), none for loopback. */
export function allowlistFor(base: string): string[] | null {
  const https = /^https:\/\/([^/?#]+)\//i.exec(base);
  return https ? [`https://${https[1].toLowerCase()}/`] : null;
}

/** Whether Apps Script fetches `url` under the allowlist (null: none), by that page's rules (`/api` not `/apix`). */
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

/** API_BASE_URL's override, else the build's; one outside the allowlist is refused (every fetch would fail). */
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

/** Script properties as read (SCRIPT_PROPERTY names them). */
export interface ScriptConfig {
  endpoint: EndpointResult;
  stepBudgetMs?: number;
  batchSize?: number;
  /** The adaptive batch size's cap. */
  maxConcurrency: number;
  /** Bounded by MAX_SLICES. */
  slices?: number;
  /** Lowers =FINDEMAIL's work budget (tests and operators). */
  findEmailBudgetMs?: number;
  networkHosts: NetworkHosts;
}
