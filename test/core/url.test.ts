import { looksLikeUrl, MAX_URL_LENGTH, parseProfileInput } from '../../src/core/url';

describe('parseProfileInput', () => {
  it('trims, keeps the input as sent and normalises the key', () => {
    expect(parseProfileInput('  HTTPS://WWW.Network.com/in/Jane-Doe/?utm=x#top  ')).toEqual({
      kind: 'url',
      sent: 'HTTPS://WWW.Network.com/in/Jane-Doe/?utm=x#top',
      key: 'https://network.com/in/Jane-Doe',
    });
  });

  it('accepts a URL without scheme and gives it the same key as with one', () => {
    const bare = parseProfileInput('network.com/in/jane-doe');
    const full = parseProfileInput('http://www.network.com/in/jane-doe///');
    expect(bare).toMatchObject({ kind: 'url', sent: 'network.com/in/jane-doe' });
    expect(bare.kind === 'url' && full.kind === 'url' && bare.key === full.key).toBe(true);
  });

  it.each([
    [null, 'empty'],
    [undefined, 'empty'],
    ['', 'empty'],
    ['   ', 'empty'],
  ])('treats %p as empty', (value, kind) => {
    expect(parseProfileInput(value).kind).toBe(kind);
  });

  it.each([
    [42, /42 is not a profile URL/],
    [true, /true is not a profile URL/],
    [new Date(2024, 0, 1), /date/],
    ['#N/A', /error/],
    ['Jane Doe', /spaces/],
    ['not a url', /spaces/],
    ['hello', /not a web address/],
    ['ftp://network.com/in/x', /ftp: is not a web address/],
    ['mailto:jane@x.com', /not a web address/],
    ['https://network.com', /without a profile path/],
    ['https://network.com/', /without a profile path/],
    [`https://network.com/in/${'a'.repeat(MAX_URL_LENGTH)}`, /longer than 2048/],
  ])('rejects %p locally', (value, reason) => {
    const parsed = parseProfileInput(value);
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.reason).toMatch(reason);
  });

  it('tells header text from URLs', () => {
    expect(looksLikeUrl('Profile URL')).toBe(false);
    expect(looksLikeUrl('LinkedIn')).toBe(false);
    expect(looksLikeUrl('https://www.network.com/in/jane')).toBe(true);
  });
});
