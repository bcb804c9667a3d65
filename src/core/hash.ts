/** Two 32-bit halves, each padded to 7 base-36 digits. */
export const HASH_CHARS = 14;

/** A 64-bit FNV-1a hash (as two 32-bit halves) in base 36: short, stable property keys for normalised URLs. */
export function stableHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995) ^ (b >>> 15);
  }
  return (
    (a >>> 0).toString(36).padStart(HASH_CHARS / 2, '0') +
    (b >>> 0).toString(36).padStart(HASH_CHARS / 2, '0')
  );
}

/** A payer as the credits log names one ('' for none): the runner id itself lets its holder drive the run. */
export function payerIdOf(runnerId: string | null): string {
  return runnerId ? stableHash(runnerId).slice(0, 8) : '';
}

const KEPT_HASHES = 20_000;
const keptHashes = new Map<string, string>();

/** stableHash of a profile URL, once an execution: a hold of the lock reads the same profiles several times. */
export function profileHash(urlKey: string): string {
  let hash = keptHashes.get(urlKey);
  if (hash === undefined) {
    hash = stableHash(urlKey);
    if (keptHashes.size < KEPT_HASHES) keptHashes.set(urlKey, hash);
  }
  return hash;
}
