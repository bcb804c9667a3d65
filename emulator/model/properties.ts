/** A property store (script, a document's, or a user's), shared by every execution of an environment. */
import { AppsScriptException } from '../errors';

export const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

// https://developers.google.com/apps-script/guides/services/quotas: "Properties value size 9 KB / val",
// "Properties total storage 500 KB / property store".
export const PROPERTY_VALUE_BYTES = 9 * 1024;
export const PROPERTY_STORE_BYTES = 500 * 1024;
const STORE_FULL =
  'You have exceeded the property storage quota. Please remove some properties and try again.';

/** One property store (script, a document's, or a user's). Values are strings; limits as in Apps Script. */
export class PropertyStore {
  readonly map = new Map<string, string>();

  get(key: string): string | null {
    return this.map.get(String(key)) ?? null;
  }

  all(): Record<string, string> {
    return Object.fromEntries(this.map);
  }

  keys(): string[] {
    return [...this.map.keys()];
  }

  /** Writes all or nothing. */
  set(values: Record<string, unknown>, deleteAllOthers = false): void {
    const next = new Map(deleteAllOthers ? [] : this.map);
    for (const [key, raw] of Object.entries(values)) {
      const value = String(raw);
      if (utf8Bytes(value) > PROPERTY_VALUE_BYTES) throw new AppsScriptException('Argument too large: value');
      next.set(key, value);
    }
    if (storeBytes(next) > PROPERTY_STORE_BYTES) throw new AppsScriptException(STORE_FULL);
    this.map.clear();
    for (const [key, value] of next) this.map.set(key, value);
  }

  delete(key: string): void {
    this.map.delete(String(key));
  }

  clear(): void {
    this.map.clear();
  }

  bytes(): number {
    return storeBytes(this.map);
  }
}

function storeBytes(map: Map<string, string>): number {
  let total = 0;
  for (const [key, value] of map) total += utf8Bytes(key) + utf8Bytes(value);
  return total;
}
