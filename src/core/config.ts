/** The service's base URL: build-time default, script-property override, validation. Pure. */

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
