/**
 * The document properties as one read sees them: the buffer's size (with batches under way at a typical size),
 * URLs being sent elsewhere (not to be sent again), and records whose execution ended first.
 */
import { PENDING_RESULT_RESERVE_BYTES } from '../../src/core/limits';
import {
  CHARGE_PREFIX,
  PENDING_PREFIX,
  SENDING_PREFIX,
  TABLE_VERSION_PROPERTY,
} from '../../src/core/propertyNames';
import { newVersion, readDocumentView } from '../../src/store/documentView';
import { hashOf } from '../../src/store/table';
import { MemoryProperties } from '../support/platform';

const NOW = Date.UTC(2026, 10, 28, 4);

function props(values: Record<string, string>): MemoryProperties {
  const store = new MemoryProperties();
  for (const [k, v] of Object.entries(values)) store.values.set(k, v);
  return store;
}

test('one read: the version, nothing pending, nothing sent, in an empty document', () => {
  const store = props({});
  expect(readDocumentView(store, NOW)).toEqual({
    all: {},
    version: '',
    pendingBytes: 0,
    sending: new Set(),
    expired: [],
  });
  expect(store.calls).toBe(1);
});

test('buffered results and charges count their names and values; a formula batch under way its reserve', () => {
  const pending = `${PENDING_PREFIX}h1`;
  const charge = `${CHARGE_PREFIX}c1`;
  const view = readDocumentView(
    props({
      [pending]: 'x'.repeat(100),
      [charge]: 'y'.repeat(40),
      [`${SENDING_PREFIX}f`]: JSON.stringify({ u: NOW + 1, k: ['p/a', 'p/b'], b: 1 }),
      [`${SENDING_PREFIX}r`]: JSON.stringify({ u: NOW + 1, k: ['p/c'], c: ['run', 'ana', 'p', 'job'] }),
      [TABLE_VERSION_PROPERTY]: 'v7',
    }),
    NOW,
  );
  expect(view.version).toBe('v7');
  expect(view.pendingBytes).toBe(
    pending.length + 100 + charge.length + 40 + 2 * PENDING_RESULT_RESERVE_BYTES,
  );
  expect(view.sending).toEqual(new Set([hashOf('p/a'), hashOf('p/b'), hashOf('p/c')]));
  expect(view.expired).toEqual([]);
});

test('a record past its time is expired, not sending, and holds no reserve; an ended one is neither', () => {
  const record = { u: NOW, k: ['p/a'], b: 1 as const };
  const view = readDocumentView(
    props({ [`${SENDING_PREFIX}old`]: JSON.stringify(record), [`${SENDING_PREFIX}done`]: '' }),
    NOW,
  );
  expect(view.expired).toEqual([{ name: `${SENDING_PREFIX}old`, record }]);
  expect(view.sending.size).toBe(0);
  expect(view.pendingBytes).toBe(0);
});

test('newVersion changes with every write, even at the same time', () => {
  const versions = new Set(Array.from({ length: 20 }, () => newVersion(NOW)));
  expect(versions.size).toBeGreaterThan(18);
});
