/**
 * The manifest (appsscript.json) rules the emulator enforces: the URL allowlist and the OAuth scopes.
 * Both apply only when the manifest sets them, as in Apps Script (no `oauthScopes`: scopes are detected from the
 * code; no `urlFetchWhitelist`: any URL).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../errors';
import type { Manifest } from '../types';

export const SCOPE = 'https://www.googleapis.com/auth/';

export function readManifest(distDir: string): Manifest {
  const file = join(distDir, 'appsscript.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Manifest) : {};
}

/**
 * Is `url` allowed by the manifest's urlFetchWhitelist?
 * (https://developers.google.com/apps-script/manifest/allowlist-url): a URL matches a prefix when it is the
 * prefix or below it (`https://example.com/foo` matches `/foo`, `/foo/`, `/foo/bar`, `/foo?bar`, `/foo#bar`, not
 * `/foobar`); path matching is case-sensitive; a leading `*.` in the host matches subdomains.
 * Deviation: plain http on the loopback address is always allowed, so a bundle built for the real service can be
 * pointed at the local sandbox (Apps Script itself can never reach 127.0.0.1).
 */
export function allowedByManifest(url: URL, allowlist: string[] | undefined): boolean {
  if (allowlist === undefined) return true;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return true;
  return allowlist.some((prefix) => matchesPrefix(url, prefix));
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
}

function matchesPrefix(url: URL, prefix: string): boolean {
  const wildcard = /^https:\/\/\*\.([^/]+)(\/.*)$/.exec(prefix);
  let parsed: URL;
  try {
    parsed = new URL(wildcard ? `https://${wildcard[1]}${wildcard[2]}` : prefix);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' || url.protocol !== 'https:') return false;
  const host = url.host.toLowerCase();
  const hostOk = wildcard
    ? host.endsWith(`.${parsed.host.toLowerCase()}`)
    : host === parsed.host.toLowerCase();
  if (!hostOk) return false;
  const path = `${url.pathname}${url.search}${url.hash}`;
  const base = parsed.pathname;
  if (!path.startsWith(base)) return false;
  const rest = path.slice(base.length);
  return rest === '' || base.endsWith('/') || /^[/?#]/.test(rest);
}

/** Apps Script's message for a URL outside the allowlist (as users report it; the page gives none). */
export function notAllowlistedMessage(url: string): string {
  return `Request to ${url} failed because the URL has not been whitelisted in the script manifest.`;
}

/**
 * Throws Apps Script's error when the manifest lists its scopes and none of `scopes` is among them. The text is
 * what users report for an explicit `oauthScopes` list that lacks the scope a method needs.
 */
export function requireScope(manifest: Manifest, op: string, scopes: string[]): void {
  const granted = manifest.oauthScopes;
  if (granted === undefined || scopes.some((scope) => granted.includes(SCOPE + scope))) return;
  fail(`Specified permissions are not sufficient to call ${op}. Required permissions: ${SCOPE}${scopes[0]}`);
}
