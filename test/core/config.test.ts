import { canReuse } from '../../src/bulk/placement';
import { isHeaderText } from '../../src/bulk/rowCells';
import { planRows } from '../../src/bulk/rowPlan';
import { RunScope } from '../../src/bulk/runScope';
import { allowedByAllowlist, allowlistFor, configuredEndpoint, resolveEndpoint } from '../../src/core/config';
import { parseNetworkHosts } from '../../src/core/url';
import { retryDelayMs } from '../../src/store/send';
import { columnRead, owning } from '../support/columnRead';

const SANDBOX_HOSTS = parseNetworkHosts('network.com');

describe('resolveEndpoint', () => {
  it('tolerates a base with or without the trailing slash', () => {
    expect(resolveEndpoint('https://api.example.com/api/v1/')).toMatchObject({
      ok: true,
      endpoint: 'https://api.example.com/api/v1/network_finder',
    });
    expect(resolveEndpoint('https://api.example.com/api/v1')).toMatchObject({
      ok: true,
      endpoint: 'https://api.example.com/api/v1/network_finder',
    });
  });

  it('allows plain http only on loopback', () => {
    expect(resolveEndpoint('http://127.0.0.1:8787/api/v1/').ok).toBe(true);
    expect(resolveEndpoint('http://localhost:9/api/v1').ok).toBe(true);
    const insecure = resolveEndpoint('http://api.example.com/api/v1/');
    expect(insecure.ok).toBe(false);
    expect(!insecure.ok && insecure.message).toMatch(/must be an https:\/\/ URL/);
  });

  it('says clearly when nothing is configured', () => {
    const missing = resolveEndpoint('  ');
    expect(!missing.ok && missing.message).toMatch(/not configured.*API_BASE_URL/);
  });
});

describe('job planning', () => {
  it('knows headers from URLs', () => {
    expect(isHeaderText('Profile')).toBe(true);
    expect(isHeaderText('https://network.com/in/jane')).toBe(false);
    expect(isHeaderText('')).toBe(false);
    expect(isHeaderText(12)).toBe(false);
  });

  it("reuses output columns only when empty or the add-on's own (its titles over its recorded rows)", () => {
    const read = (rows: unknown[][], header: unknown[] | null) => columnRead(rows, header);
    const url = 'https://network.com/in/a';
    expect(canReuse(read([[url], [url, '', '', '', '']], null), 1, 4)).toBe(true);
    const ours = read(
      [[url, 'a@b.test', 'VALID', true, '']],
      ['Profile', 'Email', 'Email status', 'Catch-all', 'Note'],
    );
    expect(canReuse(owning(ours), 1, 4)).toBe(true);
    const userData = read([[url, 'Acme', '', '', '']], ['Profile', 'Company', '', '', '']);
    expect(canReuse(owning(userData), 1, 4)).toBe(false);
    expect(canReuse(read([[url, '', 'x', '', '']], null), 1, 4)).toBe(false);
  });

  it('plans blank, kept, invalid and pending rows', () => {
    const plans = planRows(
      [
        ['', '', '', ''],
        ['https://network.com/in/a', 'a@x.test', 'VALID', ''],
        ['https://network.com/in/b', '', 'ERROR', 'boom'],
        ['oops', '', '', ''],
        ['network.com/in/c', '', '', ''],
        ['https://example.com/in/d', '', '', ''],
      ],
      new RunScope({ redo: null, recheck: false, readsOutput: true }),
      1,
      SANDBOX_HOSTS,
    );
    expect(plans.map((plan) => plan.action)).toEqual([
      'blank',
      'keep',
      'lookup',
      'invalid',
      'lookup',
      'invalid',
    ]);
    expect(plans[4]).toEqual({
      action: 'lookup',
      sent: 'https://www.network.com/in/c/',
      key: 'https://network.com/in/c',
    });
    expect(
      planRows(
        [['https://network.com/in/a', 'a@x.test', 'VALID', '']],
        new RunScope({ redo: null, recheck: true, readsOutput: true }),
        1,
        SANDBOX_HOSTS,
      )[0].action,
    ).toBe('lookup');
  });
});

describe('retry delays', () => {
  it('grow exponentially and stay bounded', () => {
    const delays = [2, 3, 4, 5, 6, 7].map((attempt) => retryDelayMs(attempt));
    expect(delays).toEqual([500, 1000, 2000, 4000, 4000, 4000]);
  });
});

describe('the URL allowlist', () => {
  const ALLOWLIST = allowlistFor('https://API.example.com/api/v1/');

  it('the build derives the allowlist from an https base, none from the loopback sandbox', () => {
    expect(ALLOWLIST).toEqual(['https://api.example.com/']);
    expect(allowlistFor('http://127.0.0.1:8787/api/v1/')).toBeNull();
  });

  it('follows the prefix rules of the allowlist page', () => {
    const ok = (url: string, list: string[] | null = ALLOWLIST) => allowedByAllowlist(url, list);
    expect(ok('https://api.example.com/api/v2/network_finder')).toBe(true);
    expect(ok('https://API.EXAMPLE.COM/x')).toBe(true);
    expect(ok('https://api.example.com.evil.test/api/v1/network_finder')).toBe(false);
    expect(ok('https://evil.test/api.example.com/')).toBe(false);
    expect(ok('https://other.example.com/api/v1/network_finder')).toBe(false);
    expect(ok('http://api.example.com/api/v1/network_finder')).toBe(false);
    // Loopback http is the local sandbox; no allowlist means any URL.
    expect(ok('http://127.0.0.1:9/api/v1/network_finder')).toBe(true);
    expect(ok('https://anywhere.test/x', null)).toBe(true);
    // A path prefix matches itself and what lies below it, not a longer name.
    const narrow = ['https://api.example.com/api'];
    expect(ok('https://api.example.com/api/v1/network_finder', narrow)).toBe(true);
    expect(ok('https://api.example.com/api?x=1', narrow)).toBe(true);
    expect(ok('https://api.example.com/apix/network_finder', narrow)).toBe(false);
    expect(ok('https://api.example.com/API/v1', narrow)).toBe(false);
    // A wildcard host matches subdomains, not the bare domain.
    expect(ok('https://eu.example.com/v1', ['https://*.example.com/'])).toBe(true);
    expect(ok('https://example.com/v1', ['https://*.example.com/'])).toBe(false);
  });

  it('refuses an API_BASE_URL override outside the allowlist, naming the property and the allowlist', () => {
    const build = 'https://api.example.com/api/v1/';
    expect(configuredEndpoint(undefined, build, ALLOWLIST)).toMatchObject({
      ok: true,
      endpoint: 'https://api.example.com/api/v1/network_finder',
    });
    expect(configuredEndpoint('https://api.example.com/api/v2', build, ALLOWLIST)).toMatchObject({
      ok: true,
    });
    expect(configuredEndpoint('http://127.0.0.1:8787/api/v1/', build, ALLOWLIST)).toMatchObject({ ok: true });
    const refused = configuredEndpoint(' https://elsewhere.test/api/v1/ ', build, ALLOWLIST);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.message).toContain(
      'the script property API_BASE_URL ("https://elsewhere.test/api/v1/") is outside the add-on\'s URL allowlist (https://api.example.com/)',
    );
    // Without an allowlist (a loopback build) any https override is fetched, as Apps Script would.
    expect(
      configuredEndpoint('https://elsewhere.test/api/v1/', 'http://127.0.0.1:8787/api/v1/', null).ok,
    ).toBe(true);
  });
});
