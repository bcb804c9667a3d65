import type { RunRequest, Settings } from '../../src/api';
import { columnPlanner } from '../../src/bulk/plan';
import type { ScriptConfig } from '../../src/core/config';
import type { Platform } from '../../src/core/ports';
import { parseNetworkHosts } from '../../src/core/url';
import { type LookupResult, unusableAnswer } from '../../src/lookup/result';
import { encodeResult } from '../../src/store/codec';
import { resultsSheetOn } from '../../src/store/resultsSheet';
import { hashOf } from '../../src/store/table';
import { columnRead, owning } from '../support/columnRead';
import { MemoryProperties, memoryHiddenSheet, testClock, testPlatform } from '../support/platform';

const HOSTS = parseNetworkHosts('network.com');
const url = (slug: string) => `https://www.network.com/in/${slug}`;
const key = (slug: string) => `https://network.com/in/${slug}`;
const SETTINGS: Settings = { writeHeader: true, extraFields: false, startAtOnce: false, startAtOnceUnder: 0 };
const ALL: Pick<RunRequest, 'mode' | 'includeUnprocessable' | 'recheck' | 'placement'> = {
  mode: 'all',
  includeUnprocessable: false,
  recheck: false,
  placement: 'insert',
};
const found: LookupResult = {
  kind: 'found',
  email: 'k@acme.test',
  emailStatus: 'VALID',
  catchAll: false,
  accountType: 'professional',
  profile: {},
};
const unprocessable: LookupResult = { kind: 'unprocessable', message: 'private', profile: {} };

const read = (rows: unknown[][]) => columnRead(rows);
/** A read whose rows an earlier run of the add-on wrote beside the URLs (a recorded block). */
const ownRead = (rows: unknown[][]) => owning(columnRead(rows));

/** A platform whose results sheet holds `stored`; `reads` counts the sheet's reads. */
function world(stored: Map<string, LookupResult>) {
  const resultsSheet = memoryHiddenSheet();
  resultsSheetOn(resultsSheet).appendResults(
    new Map([...stored].map(([k, result]) => [hashOf(k), encodeResult(result, 0)])),
  );
  const counted = { reads: 0 };
  const reader = resultsSheet.reader;
  resultsSheet.reader = () => {
    counted.reads++;
    return reader();
  };
  const platform: Platform = testPlatform({
    config: () => ({ networkHosts: HOSTS }) as ScriptConfig,
    documentProperties: () => new MemoryProperties(),
    clock: testClock(),
    resultsSheet,
  });
  return { platform, counted };
}

describe('columnPlanner', () => {
  it('prices each new profile once, a stored one free, and reads the store once per profile across plans', () => {
    const { platform, counted } = world(new Map([[key('k'), found]]));
    const plan = columnPlanner(platform, SETTINGS, ALL, null);
    const rows = [[url('a')], [url('A/')], [url('k')], [url('b')]];
    const first = plan(read(rows));
    expect(first).toMatchObject({
      credits: 2,
      newProfiles: 2,
      knownProfiles: 1,
      duplicateRows: 1,
      needsConfirm: true,
    });
    const afterFirst = counted.reads;
    plan(read(rows.slice(0, 2)));
    expect(counted.reads).toBe(afterFirst);
    plan(read([...rows, [url('c')]]));
    expect(counted.reads).toBeGreaterThan(afterFirst);
  });

  it('pays again for stored results in a re-check, without reading the store', () => {
    const { platform, counted } = world(new Map([[key('k'), found]]));
    const plan = columnPlanner(
      platform,
      SETTINGS,
      { ...ALL, recheck: true },
      null,
    )(read([[url('k')], [url('a')]]));
    expect(plan).toMatchObject({ recheck: true, credits: 2, knownProfiles: 0 });
    expect(counted.reads).toBe(0);
  });

  it('retries ERROR rows only, and UNPROCESSABLE ones too when asked, paying again for those', () => {
    const stored = new Map([[key('u'), unprocessable]]);
    const rows = [
      [url('e'), '', 'ERROR', '', ''],
      [url('u'), '', 'UNPROCESSABLE', '', ''],
      [url('n'), '', 'NOT_FOUND', '', ''],
    ];
    const retry = { ...ALL, mode: 'retry' as const };
    const errors = columnPlanner(world(stored).platform, SETTINGS, retry, null)(ownRead(rows));
    expect(errors).toMatchObject({
      mode: 'retry',
      redo: ['ERROR'],
      lookupRows: 1,
      alreadyDone: 2,
      credits: 1,
    });
    const both = columnPlanner(
      world(stored).platform,
      SETTINGS,
      { ...retry, includeUnprocessable: true },
      null,
    )(ownRead(rows));
    expect(both).toMatchObject({
      redo: ['ERROR', 'UNPROCESSABLE'],
      lookupRows: 2,
      alreadyDone: 1,
      credits: 2,
    });
    // A retry works where the results are: never in inserted columns.
    expect(both.placement.kind).not.toBe('insert');
  });

  it("an ERROR row's unusable answer stored before is free for a run over every row, bought again by a retry", () => {
    const stored = new Map([[key('e'), unusableAnswer('no "status"')]]);
    const rows = [
      [url('e'), '', 'ERROR', '', ''],
      [url('a'), '', '', '', ''],
    ];
    const all = columnPlanner(world(stored).platform, SETTINGS, ALL, null)(ownRead(rows));
    expect(all).toMatchObject({ lookupRows: 2, knownProfiles: 1, newProfiles: 1, credits: 1 });
    const retry = columnPlanner(
      world(stored).platform,
      SETTINGS,
      { ...ALL, mode: 'retry' },
      null,
    )(ownRead(rows));
    expect(retry).toMatchObject({ redo: ['ERROR'], lookupRows: 1, knownProfiles: 0, credits: 1 });
  });

  it('starts at once only under the threshold', () => {
    const rows = [[url('a')], [url('b')]];
    expect(columnPlanner(world(new Map()).platform, SETTINGS, ALL, 3)(read(rows)).needsConfirm).toBe(false);
    expect(columnPlanner(world(new Map()).platform, SETTINGS, ALL, 2)(read(rows)).needsConfirm).toBe(true);
  });

  it("takes the request's placement unless another is chosen, and the settings' extra fields", () => {
    const rows = [[url('a'), 'Acme']];
    const plan = columnPlanner(world(new Map()).platform, { ...SETTINGS, extraFields: true }, ALL, null);
    expect(plan(read(rows))).toMatchObject({ placement: { kind: 'insert', columns: 'B:G' } });
    expect(plan(read(rows), 'right').placement).toMatchObject({ kind: 'right', columns: 'C:H' });
  });
});
