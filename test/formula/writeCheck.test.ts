/**
 * Whether formulas may write document properties: the property a passed check left answers at once; a refusal is
 * kept in the document cache, so later formulas neither write again nor send anything.
 */
import { FORMULA_WRITES_REFUSED_SECONDS } from '../../src/core/limits';
import { FORMULA_WRITES_PROPERTY, FORMULA_WRITES_REFUSED_KEY } from '../../src/core/propertyNames';
import { formulasMayWrite } from '../../src/formula/writeCheck';
import type { DocumentCache, LookupPorts, StoreRead } from '../../src/lookup/ports';
import { memoryCache, testClock, testPlatform } from '../support/platform';

function read(properties: Record<string, string> = {}): StoreRead {
  return { results: new Map(), room: 10, property: (name) => properties[name] };
}

function world({ writable, cache = true }: { writable: boolean; cache?: boolean }) {
  const entries = new Map<string, string>();
  const puts: { key: string; value: string; seconds?: number }[] = [];
  const base = memoryCache(entries);
  const documentCache: DocumentCache | null = cache
    ? {
        ...base,
        put(key, value, seconds) {
          puts.push({ key, value, seconds });
          base.put(key, value, seconds);
        },
      }
    : null;
  const clock = testClock(Date.UTC(2026, 10, 28, 3));
  const writes: { name: string; token: string }[] = [];
  const platform = testPlatform({
    documentPropertyWritable(name, token) {
      writes.push({ name, token });
      return writable;
    },
  });
  // Only the cache and the clock: any other port the check reached would throw.
  const given: Partial<LookupPorts> = { cache: documentCache, clock };
  const ports = new Proxy(given as LookupPorts, {
    get(target, name) {
      if (name in target) return target[name as keyof LookupPorts];
      throw new Error(`The write check reached the port ${String(name)}.`);
    },
  });
  return { platform, ports, entries, puts, writes, clock };
}

test('a property left by an earlier check answers yes without writing', () => {
  const w = world({ writable: false });
  expect(w.ports.cache).not.toBeNull();
  expect(formulasMayWrite(w.platform, w.ports, read({ [FORMULA_WRITES_PROPERTY]: '1' }))).toBe(true);
  expect(w.writes).toEqual([]);
  expect(w.puts).toEqual([]);
});

test('the first check writes the property with the time and says yes when it reads back', () => {
  const w = world({ writable: true });
  expect(formulasMayWrite(w.platform, w.ports, read())).toBe(true);
  expect(w.writes).toEqual([{ name: FORMULA_WRITES_PROPERTY, token: String(w.clock.now()) }]);
  expect(w.entries.has(FORMULA_WRITES_REFUSED_KEY)).toBe(false);
});

test('a refused write is kept in the document cache for its time, and the next formula does not write again', () => {
  const w = world({ writable: false });
  expect(formulasMayWrite(w.platform, w.ports, read())).toBe(false);
  expect(w.puts).toEqual([
    { key: FORMULA_WRITES_REFUSED_KEY, value: '1', seconds: FORMULA_WRITES_REFUSED_SECONDS },
  ]);
  expect(formulasMayWrite(w.platform, w.ports, read())).toBe(false);
  expect(w.writes).toHaveLength(1);
});

test('the property wins over a refusal still cached (a later write went through)', () => {
  const w = world({ writable: false });
  w.entries.set(FORMULA_WRITES_REFUSED_KEY, '1');
  expect(formulasMayWrite(w.platform, w.ports, read({ [FORMULA_WRITES_PROPERTY]: '5' }))).toBe(true);
});

test('without a document cache every formula checks by writing, and a refusal still says no', () => {
  const w = world({ writable: false, cache: false });
  expect(formulasMayWrite(w.platform, w.ports, read())).toBe(false);
  expect(formulasMayWrite(w.platform, w.ports, read())).toBe(false);
  expect(w.writes).toHaveLength(2);
});

test('the daily properties quota is not read as a refusal: the error reaches the caller and nothing is cached', () => {
  const w = world({ writable: true });
  const platform = testPlatform({
    documentPropertyWritable() {
      throw new Error('Service invoked too many times for one day: properties.');
    },
  });
  expect(() => formulasMayWrite(platform, w.ports, read())).toThrow('too many times');
  expect(w.entries.has(FORMULA_WRITES_REFUSED_KEY)).toBe(false);
});
