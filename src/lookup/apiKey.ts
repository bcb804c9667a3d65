/** The API key as people may see it. Pure. */
import { API_KEY_MAX_CHARS, API_KEY_MIN_CHARS } from '../core/limits';

export function redactKey(text: string, apiKey: string | null | undefined): string {
  if (!apiKey || apiKey.length < 4) return text;
  return text.split(apiKey).join(maskKey(apiKey));
}

/** The only form of a key that ever leaves the user properties. */
export function maskKey(apiKey: string): string {
  return `••••••••${apiKey.slice(-4)}`;
}

export function checkKeyShape(raw: unknown): { ok: true; key: string } | { ok: false; message: string } {
  const key = typeof raw === 'string' ? raw.trim() : '';
  const refused = (message: string) => ({ ok: false as const, message });
  if (key === '') return refused('Paste your API key.');
  if (key.length < API_KEY_MIN_CHARS || key.length > API_KEY_MAX_CHARS)
    return refused(
      `That does not look like an API key (expected ${API_KEY_MIN_CHARS} to ${API_KEY_MAX_CHARS} characters).`,
    );
  if (!/^[\x21-\x7e]+$/.test(key))
    return refused('An API key has no spaces or special characters; copy it again from API settings.');
  return { ok: true, key };
}
