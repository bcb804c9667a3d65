/** A person's settings as the sidebar sends them: checked, defaults for the rest, other fields dropped. */
import { DEFAULT_SETTINGS, MAX_START_AT_ONCE_UNDER } from '../../src/core/limits';
import { pickSettings } from '../../src/core/settings';

test('nothing usable sent: the defaults', () => {
  for (const source of [undefined, null, 'text', 3, {}])
    expect(pickSettings(source)).toEqual(DEFAULT_SETTINGS);
});

test('booleans are kept, anything else for them ignored', () => {
  expect(pickSettings({ writeHeader: false, extraFields: true, startAtOnce: true })).toEqual({
    ...DEFAULT_SETTINGS,
    writeHeader: false,
    extraFields: true,
    startAtOnce: true,
  });
  expect(pickSettings({ writeHeader: 'false', extraFields: 1, startAtOnce: 'yes' })).toEqual(
    DEFAULT_SETTINGS,
  );
});

test('fields the settings do not have (a recheck, an old confirmAbove) are dropped', () => {
  expect(pickSettings({ recheck: true, confirmAbove: 5, apiKey: 'secret-key' })).toEqual(DEFAULT_SETTINGS);
});

test('the start-at-once bound: a whole number, as text too, kept within 1 and the maximum', () => {
  expect(pickSettings({ startAtOnceUnder: 25 }).startAtOnceUnder).toBe(25);
  expect(pickSettings({ startAtOnceUnder: '40' }).startAtOnceUnder).toBe(40);
  expect(pickSettings({ startAtOnceUnder: 0 }).startAtOnceUnder).toBe(1);
  expect(pickSettings({ startAtOnceUnder: -7 }).startAtOnceUnder).toBe(1);
  expect(pickSettings({ startAtOnceUnder: MAX_START_AT_ONCE_UNDER * 10 }).startAtOnceUnder).toBe(
    MAX_START_AT_ONCE_UNDER,
  );
});

test('an empty, fractional or non-number bound keeps the default', () => {
  for (const startAtOnceUnder of ['', 2.5, 'ten', Number.NaN]) {
    expect(pickSettings({ startAtOnceUnder }).startAtOnceUnder).toBe(DEFAULT_SETTINGS.startAtOnceUnder);
  }
});

test('does not change the shared defaults', () => {
  pickSettings({ writeHeader: false, startAtOnceUnder: 99 });
  expect(DEFAULT_SETTINGS.writeHeader).toBe(true);
  expect(DEFAULT_SETTINGS.startAtOnceUnder).toBe(10);
});
