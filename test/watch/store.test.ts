/** The watch's record in document properties (src/watch/store.ts), over the test platform: no emulator. */

import { DocumentBusyError } from '../../src/core/ports';
import { WATCH_PROPERTY } from '../../src/core/propertyNames';
import { loadWatch, saveWatch, updateWatch } from '../../src/watch/store';
import { freeLock, MemoryProperties, testPlatform } from '../support/platform';
import { watchRecord } from './helpers';

function document(lock = freeLock) {
  const properties = new MemoryProperties();
  return { properties, platform: testPlatform({ lock, documentProperties: () => properties }) };
}

/** A lock that says whether work runs inside it. */
function recordingLock() {
  const lock = { held: false, taken: 0, ...freeLock };
  lock.with = (work) => {
    lock.taken++;
    lock.held = true;
    try {
      return work();
    } finally {
      lock.held = false;
    }
  };
  return lock;
}

describe('the watch record', () => {
  it('is null when none is stored, and when what is stored is not a watch (not JSON, a field missing or of another type)', () => {
    const { properties, platform } = document();
    expect(loadWatch(platform)).toBeNull();
    properties.values.set(WATCH_PROPERTY, '{not json');
    expect(loadWatch(platform)).toBeNull();
    properties.values.set(WATCH_PROPERTY, JSON.stringify({ ...watchRecord(), triggerIds: undefined }));
    expect(loadWatch(platform)).toBeNull();
    properties.values.set(WATCH_PROPERTY, JSON.stringify({ ...watchRecord(), limit: '100' }));
    expect(loadWatch(platform)).toBeNull();
  });

  it('reads back what was saved, in one property', () => {
    const { properties, platform } = document();
    const watch = watchRecord({ usedToday: 7, outputColumn: 3 });
    saveWatch(platform, watch);
    expect([...properties.values.keys()]).toEqual([WATCH_PROPERTY]);
    expect(loadWatch(platform)).toEqual(watch);
  });

  it('is updated from the freshest stored copy, under the document lock', () => {
    const lock = recordingLock();
    const { properties, platform } = document(lock);
    saveWatch(platform, watchRecord({ usedToday: 4 }));
    // Another execution counted 3 more credits after this one last read the watch.
    properties.values.set(WATCH_PROPERTY, JSON.stringify(watchRecord({ usedToday: 7 })));
    const next = updateWatch(platform, (stored) => {
      expect(lock.held).toBe(true);
      return stored ? { ...stored, usedToday: stored.usedToday + 1 } : stored;
    });
    expect(lock.taken).toBe(1);
    expect(next?.usedToday).toBe(8);
    expect(loadWatch(platform)?.usedToday).toBe(8);
  });

  it('writes nothing when the update keeps the stored watch, or has none', () => {
    const { properties, platform } = document();
    saveWatch(platform, watchRecord());
    const before = properties.calls;
    updateWatch(platform, (stored) => stored);
    expect(properties.calls - before).toBe(1);
    properties.values.clear();
    expect(updateWatch(platform, (stored) => stored)).toBeNull();
    expect(properties.values.size).toBe(0);
  });

  it('changes nothing when the document lock stays busy, and says so', () => {
    const busy = {
      ...freeLock,
      with: () => {
        throw new DocumentBusyError();
      },
    };
    const { properties, platform } = document(busy);
    properties.values.set(WATCH_PROPERTY, JSON.stringify(watchRecord({ usedToday: 4 })));
    expect(() => updateWatch(platform, (stored) => stored && { ...stored, usedToday: 9 })).toThrow(
      DocumentBusyError,
    );
    expect(loadWatch(platform)?.usedToday).toBe(4);
  });
});
