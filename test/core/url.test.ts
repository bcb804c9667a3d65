import { MAX_URL_LENGTH } from '../../src/core/limits';
import {
  DEFAULT_NETWORK_HOSTS,
  looksLikeUrl,
  type NetworkHosts,
  parseNetworkHosts,
  parseProfileInput,
} from '../../src/core/url';

/** The sandbox's network, as the tests' script property NETWORK_HOSTS sets it. */
const SANDBOX = parseNetworkHosts('network.com');

function parsed(value: unknown, hosts: NetworkHosts = SANDBOX) {
  return parseProfileInput(value, hosts);
}

function reasonOf(value: unknown, hosts: NetworkHosts = SANDBOX): string {
  const input = parsed(value, hosts);
  if (input.kind !== 'invalid') throw new Error(`${String(value)} was accepted: ${JSON.stringify(input)}`);
  return input.reason;
}

describe('parseProfileInput: one key and one canonical URL per profile', () => {
  it('trims, and gives the canonical spelling as sent and the normalised key', () => {
    expect(parsed('  HTTPS://WWW.Network.com/in/Jane-Doe/?utm=x#top  ')).toEqual({
      kind: 'url',
      sent: 'https://www.network.com/in/jane-doe/',
      key: 'https://network.com/in/jane-doe',
    });
  });

  it('sends an upper-case spelling as its lower-case form', () => {
    expect(parsed('HTTPS://WWW.NETWORK.COM/IN/New-Person-Three/')).toMatchObject({
      sent: 'https://www.network.com/in/new-person-three/',
      key: 'https://network.com/in/new-person-three',
    });
  });

  const SPELLINGS = [
    'https://www.network.com/in/jane-doe',
    'https://www.network.com/in/jane-doe/',
    'http://www.network.com/in/jane-doe',
    'https://network.com/in/jane-doe',
    'network.com/in/jane-doe',
    'www.network.com/in/jane-doe///',
    '//www.network.com/in/jane-doe',
    'https://www.network.com/in/Jane-Doe',
    'HTTPS://WWW.NETWORK.COM/IN/JANE-DOE',
    'https://uk.network.com/in/jane-doe',
    'https://de.network.com/in/jane-doe/',
    'https://m.network.com/in/jane-doe',
    'https://www.network.com/mwlite/in/jane-doe',
    'https://www.network.com/in/jane-doe/en',
    'https://www.network.com/in/jane-doe/de/',
    'https://www.network.com/in/jane-doe/details/experience/',
    'https://www.network.com/in/jane-doe/overlay/contact-info/',
    'https://www.network.com/in/jane-doe?originalSubdomain=uk',
    'https://www.network.com/in/jane-doe#about',
    'https://www.network.com/in/jane%2Ddoe',
    'https://www.network.com.:443/in/jane-doe',
    'http://www.network.com:80/in/jane-doe',
    'https:\\\\www.network.com\\in\\jane-doe',
  ];

  it.each(SPELLINGS)('%s is jane-doe', (spelling) => {
    expect(parsed(spelling)).toEqual({
      kind: 'url',
      sent: 'https://www.network.com/in/jane-doe/',
      key: 'https://network.com/in/jane-doe',
    });
  });

  it('reads a percent-encoded and a decoded id as one profile, sent encoded', () => {
    const forms = [
      'https://www.network.com/in/jos%C3%A9-m%C3%BCller',
      'https://www.network.com/in/jos%c3%a9-m%c3%bcller',
      'https://www.network.com/in/José-Müller',
      'https://www.network.com/in/josé-müller/',
      // é written as e + combining acute (NFD): the same name
      'https://www.network.com/in/jose\u0301-mu\u0308ller',
    ];
    for (const form of forms) {
      expect(parsed(form)).toEqual({
        kind: 'url',
        sent: 'https://www.network.com/in/jos%C3%A9-m%C3%BCller/',
        key: 'https://network.com/in/jos%C3%A9-m%C3%BCller',
      });
    }
  });

  it('keeps the case of a member-id URL (case-sensitive), and only of those', () => {
    const memberId = 'ACoAAA8BYqEBCGLg_vT_ca6mMEqkpp9nVffJ3hc';
    expect(parsed(`https://www.network.com/in/${memberId}`)).toMatchObject({
      key: `https://network.com/in/${memberId}`,
    });
    expect(parsed('https://www.network.com/in/ACoA-short')).toMatchObject({
      key: 'https://network.com/in/acoa-short',
    });
  });

  it('keeps different profiles apart', () => {
    const keys = ['jane-doe', 'jane-doe-1', 'john-doe'].map((slug) => {
      const input = parsed(`https://www.network.com/in/${slug}`);
      return input.kind === 'url' ? input.key : '';
    });
    expect(new Set(keys).size).toBe(3);
  });

  it.each([
    [null, 'empty'],
    [undefined, 'empty'],
    ['', 'empty'],
    ['   ', 'empty'],
  ])('treats %p as empty', (value, kind) => {
    expect(parsed(value).kind).toBe(kind);
  });
});

describe('parseProfileInput: what is not a profile is INVALID_URL with the reason', () => {
  it.each([
    [42, /^42 is not a profile URL$/],
    [true, /^true is not a profile URL$/],
    [new Date(2024, 0, 1), /date/],
    ['#N/A', /error/],
    ['Jane Doe', /^not a web address$/],
    ['not a url', /^not a web address$/],
    ['https://www.network.com/in/jane doe', /^contains spaces, not a profile URL$/],
    ['network.com/in/jane doe', /^contains spaces/],
    ['hello', /^not a web address$/],
    ['ftp://network.com/in/x', /^ftp: is not a web address$/],
    ['mailto:jane@x.com', /^not a web address$/],
    ['https://user@network.com/in/x', /^not a web address$/],
    ['https://network.com', /without a profile path/],
    ['https://network.com/', /without a profile path/],
    ['https://example.com/about', /^not a profile URL of network\.com: https:\/\/example\.com\/about$/],
    ['https://example.com/in/jane-doe', /^not a profile URL of network\.com/],
    ['https://network.com.evil.test/in/jane-doe', /^not a profile URL of network\.com/],
    ['https://evilnetwork.com/in/jane-doe', /^not a profile URL of network\.com/],
    ['https://www.network.com:8443/in/jane-doe', /^not a profile URL of network\.com/],
    ['https://www.network.com/company/acme', /^a company page, not a person's profile/],
    ['https://www.network.com/school/mit/', /^a school page/],
    ['https://www.network.com/jobs/view/123456', /^a job post, not a person's profile/],
    ['https://www.network.com/posts/jane-doe_activity-1', /^a post/],
    ['https://www.network.com/feed/update/urn:li:activity:1', /^a post/],
    ['https://www.network.com/pulse/some-article', /^an article/],
    ['https://www.network.com/pub/jane-doe/1a/2b3/4c5', /^an old \/pub\/ profile address/],
    ['https://www.network.com/sales/people/ACwAAA,NAME', /^a Sales Navigator link/],
    ['https://www.network.com/about', /^not a profile URL \(a profile URL is network\.com\/in\/<name>\)/],
    ['https://www.network.com/in/', /^not a profile URL/],
    ['https://www.network.com/in/jane%ZZdoe', /invalid %-escape/],
    ['https://www.network.com/in/%E0%A4%A', /invalid %-escape/],
    ['https://www.network.com/in/jane.doe', /characters a profile name never has/],
    ['https://www.network.com/in/jane%2Fdoe', /characters a profile name never has/],
    [`https://www.network.com/in/${'a'.repeat(101)}`, /at most 100 characters/],
    [`https://network.com/in/${'a'.repeat(MAX_URL_LENGTH)}`, /longer than 2048/],
  ])('rejects %p', (value, reason) => {
    expect(reasonOf(value)).toMatch(reason);
  });

  it('accepts an id of 100 characters', () => {
    expect(parsed(`https://www.network.com/in/${'a'.repeat(100)}`).kind).toBe('url');
  });

  it('quotes a long foreign address shortly', () => {
    const reason = reasonOf(`https://example.com/${'x'.repeat(500)}`);
    expect(reason.length).toBeLessThan(140);
    expect(reason.endsWith('…')).toBe(true);
  });
});

describe('network hosts', () => {
  it('default to the network at linkedin.com and its subdomains', () => {
    expect(DEFAULT_NETWORK_HOSTS.domains).toEqual(['linkedin.com']);
    expect(parseNetworkHosts(undefined)).toBe(DEFAULT_NETWORK_HOSTS);
    expect(parseNetworkHosts('  ')).toBe(DEFAULT_NETWORK_HOSTS);
    for (const host of [
      'www.linkedin.com',
      'linkedin.com',
      'uk.linkedin.com',
      'de.linkedin.com',
      'm.linkedin.com',
    ]) {
      expect(parseProfileInput(`https://${host}/in/Jane-Doe-12ab/`, DEFAULT_NETWORK_HOSTS)).toEqual({
        kind: 'url',
        sent: 'https://www.linkedin.com/in/jane-doe-12ab/',
        key: 'https://linkedin.com/in/jane-doe-12ab',
      });
    }
    expect(reasonOf('https://www.network.com/in/jane-doe', DEFAULT_NETWORK_HOSTS)).toBe(
      'not a profile URL of linkedin.com: https://www.network.com/in/jane-doe',
    );
  });

  it('read a comma-separated list; each domain keeps its own family', () => {
    const hosts = parseNetworkHosts(' https://www.LinkedIn.com/ , linkedin.cn,*.network.com');
    expect(hosts).toEqual({ domains: ['linkedin.com', 'linkedin.cn', 'network.com'] });
    expect(parseProfileInput('cn.linkedin.cn/in/wei-li', hosts)).toMatchObject({
      sent: 'https://www.linkedin.cn/in/wei-li/',
      key: 'https://linkedin.cn/in/wei-li',
    });
    expect(parseProfileInput('uk.network.com/in/wei-li', hosts)).toMatchObject({
      key: 'https://network.com/in/wei-li',
    });
    expect(reasonOf('https://example.com/in/wei-li', hosts)).toMatch(
      /^not a profile URL of linkedin\.com, linkedin\.cn or network\.com: /,
    );
  });

  it('the longest matching domain is the family', () => {
    const hosts = parseNetworkHosts('network.com,uk.network.com');
    expect(parseProfileInput('https://uk.network.com/in/a', hosts)).toMatchObject({
      sent: 'https://www.uk.network.com/in/a/',
    });
  });

  it('an unusable setting makes every URL INVALID_URL with the reason, and blanks stay blank', () => {
    const hosts = parseNetworkHosts('linkedin.com, not a domain');
    expect(hosts.error).toMatch(/NETWORK_HOSTS setting is not a list of domains \("not a domain"\)/);
    expect(reasonOf('https://www.linkedin.com/in/jane-doe', hosts)).toBe(hosts.error);
    expect(parseProfileInput('', hosts).kind).toBe('empty');
    expect(reasonOf(42, hosts)).toBe('42 is not a profile URL');
  });
});

describe('looksLikeUrl', () => {
  it('tells header text from web addresses, whatever their site', () => {
    expect(looksLikeUrl('Profile URL')).toBe(false);
    expect(looksLikeUrl('LinkedIn')).toBe(false);
    expect(looksLikeUrl('linkedin.com')).toBe(false);
    expect(looksLikeUrl(42)).toBe(false);
    expect(looksLikeUrl('https://www.network.com/in/jane')).toBe(true);
    expect(looksLikeUrl('network.com/in/jane')).toBe(true);
    // Not a profile, but data all the same: marked INVALID_URL, not taken for a title.
    expect(looksLikeUrl('https://example.com/about')).toBe(true);
    expect(looksLikeUrl('https://example.com')).toBe(true);
  });
});
