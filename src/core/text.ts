/** Wording shared by every message: counts with the right noun, and sentences that end with one full stop. Pure. */

export function countText(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** countText with the count as people read large ones: "1,200 credits". */
export function numberText(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

/** "12 of 15 lookups found an address (80 %)", the same wherever it appears. */
export function hitRateText(lookups: number, found: number): string {
  const share = lookups > 0 ? Math.round((100 * found) / lookups) : 0;
  return `${found.toLocaleString('en-US')} of ${numberText(lookups, 'lookup')} found an address (${share} %)`;
}

/** To go inside a sentence that adds its own. */
export function withoutStop(text: string): string {
  return text.trim().replace(/[.\s]+$/, '');
}

/** An internal address means nothing to a person, and may leak. */
export function withoutAddresses(text: string): string {
  return text
    .replace(/\b(?:https?|wss?):\/\/\S+/gi, '')
    .replace(/\s*[:(]\s*\)?\s*$/, '')
    .replace(/\(\s*\)/g, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** The service's own words, quoted once after ours: ` The service said: "…".` ('' when it said nothing). */
export function quoteService(said: string | undefined): string {
  const text = said === undefined ? '' : withoutStop(withoutAddresses(said)).replace(/"/g, "'");
  return text ? ` The service said: "${text}".` : '';
}

/** A property value's limit is in bytes (apps-script/guides/services/quotas). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    // A surrogate pair is one 4-byte character: 2 for each half.
    else if (code >= 0xd800 && code <= 0xdfff) bytes += 2;
    else bytes += 3;
  }
  return bytes;
}
