import {
  buildLookupResponse,
  DOMAINS,
  FORMULA_EMAIL,
  HUGE_NAME_LENGTH,
  normalizeProfileUrl,
  predictLookup,
  profileMarkers,
  UNPROCESSABLE_MESSAGE,
} from '../../sandbox/profiles';

const JANE = 'https://www.network.com/in/jane-doe-12ab';

describe('predictLookup', () => {
  it('derives the name from the slug and builds first.last@domain', () => {
    const prediction = predictLookup(JANE);
    expect(prediction).toEqual({
      kind: 'found',
      email: 'jane.doe@acme-corp.test',
      emailStatus: 'VALID',
      accountType: 'professional',
      isCatchAll: false,
      name: 'Jane Doe',
      domain: 'acme-corp.test',
    });
    const mary = predictLookup('https://www.network.com/in/mary-ann-smith-7');
    expect(mary).toMatchObject({ kind: 'found', name: 'Mary Ann Smith' });
    expect(mary.kind === 'found' && mary.email).toMatch(/^mary\.smith@/);
    const single = predictLookup('https://www.network.com/in/sam');
    expect(single.kind === 'found' && single.email).toMatch(/^sam@[a-z-]+\.test$/);
  });

  it('folds accents in the address but keeps them in the name', () => {
    const prediction = predictLookup('https://www.network.com/in/jos%C3%A9-m%C3%BCller');
    expect(prediction).toMatchObject({ kind: 'found', name: 'José Müller' });
    expect(prediction.kind === 'found' && prediction.email).toMatch(/^jose\.muller@/);
  });

  it('treats spellings of the same profile alike: scheme, www, host case, query, fragment, trailing slash', () => {
    const variants = [
      'http://WWW.Network.COM/in/jane-doe-12ab/?trk=public#top',
      'network.com/in/jane-doe-12ab',
      '  https://network.com/in/jane-doe-12ab//  ',
    ];
    for (const variant of variants) {
      expect(normalizeProfileUrl(variant)).toBe('https://network.com/in/jane-doe-12ab');
      expect(predictLookup(variant)).toEqual(predictLookup(JANE));
    }
    // The path is case-sensitive, as in the add-on's cache key.
    expect(normalizeProfileUrl('https://network.com/in/Jane-Doe')).toBe('https://network.com/in/Jane-Doe');
  });

  it('is deterministic and spreads profiles over the fixed domains, two of them catch-all', () => {
    const domains = new Set<string>();
    let catchAll = 0;
    for (let i = 0; i < 64; i++) {
      const url = `https://www.network.com/in/user-${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
      const first = predictLookup(url);
      expect(predictLookup(url)).toEqual(first);
      if (first.kind !== 'found') throw new Error(`expected found for ${url}`);
      expect(DOMAINS.map((d) => d.domain)).toContain(first.domain);
      expect(first.isCatchAll).toBe(DOMAINS.find((d) => d.domain === first.domain)!.catchAll);
      domains.add(first.domain);
      if (first.isCatchAll) catchAll++;
    }
    expect(domains.size).toBe(DOMAINS.length);
    expect(DOMAINS.filter((d) => d.catchAll).map((d) => d.domain)).toEqual(['globex.test', 'hooli.test']);
    expect(catchAll).toBeGreaterThan(0);
  });

  it('answers not found for the noemail token', () => {
    expect(predictLookup('https://www.network.com/in/bob-noemail')).toEqual({
      kind: 'not_found',
      name: 'Bob',
    });
  });

  it('answers unprocessable without a name when none can be derived', () => {
    for (const url of [
      'https://www.network.com/in/12345',
      'https://www.network.com/company/acme',
      'https://www.network.com/in/',
      'https://www.network.com/in/anonymous-jane',
      'https://www.network.com/in/noemail',
      'not a url',
    ]) {
      const prediction = predictLookup(url);
      expect(prediction).toEqual({
        kind: 'unprocessable',
        message: UNPROCESSABLE_MESSAGE,
        partialProfile: { network_url: normalizeProfileUrl(url), input_url: url },
      });
    }
  });

  it('answers unprocessable with the name for the nodomain token', () => {
    expect(predictLookup('https://www.network.com/in/ann-lee-nodomain')).toEqual({
      kind: 'unprocessable',
      message: UNPROCESSABLE_MESSAGE,
      partialProfile: {
        network_url: 'https://network.com/in/ann-lee-nodomain',
        input_url: 'https://www.network.com/in/ann-lee-nodomain',
        name: 'Ann Lee',
      },
    });
  });

  it('returns a formula as the address for the formula token', () => {
    if (!FORMULA_EMAIL.startsWith('=')) throw new Error('FORMULA_EMAIL must start with "=" to be a formula');
    expect(predictLookup('https://www.network.com/in/eve-formula')).toMatchObject({
      kind: 'found',
      email: FORMULA_EMAIL,
      name: 'Eve',
    });
  });

  it('leaves flaky and broken out of the name and the result', () => {
    expect(predictLookup('https://www.network.com/in/sam-flaky')).toMatchObject({
      kind: 'found',
      name: 'Sam',
    });
    expect(predictLookup('https://www.network.com/in/sam-broken')).toMatchObject({
      kind: 'found',
      name: 'Sam',
    });
    expect([...profileMarkers('https://www.network.com/in/sam-flaky-broken')]).toEqual(['flaky', 'broken']);
    expect(profileMarkers('https://www.network.com/in/flakysam').size).toBe(0);
  });
});

describe('buildLookupResponse', () => {
  it('gives the full 200 body of spec 2.2 and 2.3', () => {
    const { status, body } = buildLookupResponse(JANE);
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'success',
      network_url: 'https://network.com/in/jane-doe-12ab',
      email_address: 'jane.doe@acme-corp.test',
      email_status: 'VALID',
      account_type: 'professional',
      is_catch_all: false,
      profile: {
        network_url: 'https://network.com/in/jane-doe-12ab',
        input_url: JANE,
        name: 'Jane Doe',
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/),
        headline: expect.stringContaining('Acme Corp'),
        company: 'Acme Corp',
      },
    });
    expect(buildLookupResponse(JANE)).toEqual(buildLookupResponse(JANE));
  });

  it('gives updated_at timestamps with various offsets that parse to real instants', () => {
    const offsets = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const { body } = buildLookupResponse(
        `https://www.network.com/in/person-${'abcdefghij'[i % 10]}${'klmn'[i % 4]}`,
      );
      if (body.status !== 'success') throw new Error('expected success');
      const stamp = body.profile.updated_at;
      expect(Number.isNaN(Date.parse(stamp))).toBe(false);
      expect(new Date(stamp).getUTCFullYear()).toBe(2024);
      offsets.add(stamp.slice(-6));
    }
    expect(offsets.size).toBeGreaterThan(1);
  });

  it('gives nulls for a profile without an address, and 422 with the partial profile', () => {
    const notFound = buildLookupResponse('https://www.network.com/in/bob-noemail');
    expect(notFound.status).toBe(200);
    expect(notFound.body).toMatchObject({
      status: 'success',
      email_address: null,
      email_status: null,
      profile: { name: 'Bob' },
    });
    expect(buildLookupResponse('https://www.network.com/in/12345')).toEqual({
      status: 422,
      body: {
        status: 'unprocessable',
        message: UNPROCESSABLE_MESSAGE,
        profile: {
          network_url: 'https://network.com/in/12345',
          input_url: 'https://www.network.com/in/12345',
        },
      },
    });
  });
});

describe('odd answers', () => {
  it('huge-name-…: found, the name 10 KB long, the rest as for any profile', () => {
    const answer = buildLookupResponse('https://www.network.com/in/huge-name-kim-lee/');
    if (answer.status !== 200 || answer.body.status !== 'success') throw new Error('expected a success body');
    expect(answer.body.profile.name).toHaveLength(HUGE_NAME_LENGTH);
    expect(answer.body.profile.name.startsWith('Huge Name Kim Lee Huge Name')).toBe(true);
    expect(answer.body.email_address).toMatch(/^huge\.lee@[a-z-]+\.test$/);
    expect(Buffer.byteLength(JSON.stringify(answer.body))).toBeGreaterThan(9 * 1024);
  });

  it('odd-200-empty-…: a 200 with {}', () => {
    expect(buildLookupResponse('https://www.network.com/in/odd-200-empty-ann')).toEqual({
      status: 200,
      body: {},
    });
    expect(predictLookup('https://www.network.com/in/odd-200-empty-ann')).toEqual({
      kind: 'off_contract',
      body: {},
    });
  });

  it('odd-200-nostatus-…: the found body without its status', () => {
    const input = 'https://www.network.com/in/odd-200-nostatus-bob';
    const answer = buildLookupResponse(input);
    expect(answer.status).toBe(200);
    expect(answer.body).not.toHaveProperty('status');
    expect(answer.body).toMatchObject({
      email_address: expect.stringMatching(/^odd\.bob@/),
      profile: { name: 'Odd Nostatus Bob' },
    });
  });

  it('other slugs that merely contain the words answer normally', () => {
    expect(predictLookup('https://www.network.com/in/jane-odd-200-empty').kind).toBe('found');
    const name = predictLookup('https://www.network.com/in/jane-huge-name');
    expect(name.kind === 'found' && name.name).toBe('Jane Huge Name');
  });
});
