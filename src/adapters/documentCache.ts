/** CacheService: the document cache (claims and markers, src/core/claims.ts), shared by every user of the spreadsheet. */
import type { DocumentCache } from '../core/ports';
import { HALT_KEY } from '../core/propertyNames';

/** The document cache, or null when the execution has none (CacheService is best-effort). */
export function documentCache(): DocumentCache | null {
  return CacheService.getDocumentCache();
}

/** A new key was saved: formulas may call the service again at once. */
export function clearHalt(): void {
  documentCache()?.remove(HALT_KEY);
}
