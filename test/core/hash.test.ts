/** The stable hash of a normalised URL (src/core/hash.ts): the key of every stored result and mark. */
import { HASH_CHARS, stableHash } from '../../src/core/hash';

test('a hash is HASH_CHARS base-36 characters, the same for the same text', () => {
  for (const text of ['', 'a', 'https://www.linkedin.com/in/ann', 'x'.repeat(5000)]) {
    expect(stableHash(text)).toMatch(new RegExp(`^[0-9a-z]{${HASH_CHARS}}$`));
    expect(stableHash(text)).toBe(stableHash(`${text}`));
  }
});

test('10,000 profile keys that differ by one character get 10,000 hashes', () => {
  const hashes = new Set(Array.from({ length: 10_000 }, (_, i) => stableHash(`linkedin.com/in/person-${i}`)));
  expect(hashes.size).toBe(10_000);
  expect(stableHash('linkedin.com/in/ab')).not.toBe(stableHash('linkedin.com/in/ba'));
});
