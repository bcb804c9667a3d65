/**
 * The simple triggers' move of the formulas' buffer into the results sheet: only where the trigger may read and
 * write (LIMITED, FULL), only when the buffer holds something, and never failing the trigger.
 */
import { keepFormulaBuffer } from '../../src/formula/buffer';
import type { FormulaBuffer } from '../../src/store/ports';

function buffer(holds: boolean, moved = 3, fail?: 'holds' | 'keep') {
  const calls: string[] = [];
  const port: FormulaBuffer = {
    holdsResults() {
      calls.push('holds');
      if (fail === 'holds') throw new Error('Service invoked too many times for one day: properties.');
      return holds;
    },
    keep() {
      calls.push('keep');
      if (fail === 'keep') throw new Error('Exception: Service Spreadsheets failed');
      return moved;
    },
  };
  return { port, calls };
}

test.each(['LIMITED', 'FULL'])(
  'in AuthMode.%s a buffer holding results is moved, and the count returned',
  (mode) => {
    const b = buffer(true, 4);
    expect(keepFormulaBuffer({ authMode: mode }, b.port)).toBe(4);
    expect(b.calls).toEqual(['holds', 'keep']);
  },
);

test('an authMode given as an object with the enum name (as Apps Script passes it) is read by its text', () => {
  const b = buffer(true, 2);
  expect(keepFormulaBuffer({ authMode: { toString: () => 'LIMITED' } }, b.port)).toBe(2);
});

test('an empty buffer is only looked at: nothing moved', () => {
  const b = buffer(false);
  expect(keepFormulaBuffer({ authMode: 'LIMITED' }, b.port)).toBe(0);
  expect(b.calls).toEqual(['holds']);
});

test.each([
  ['AuthMode.NONE', { authMode: 'NONE' }],
  ['no authMode', {}],
  ['no event', undefined],
  ['a lowercase mode', { authMode: 'limited' }],
])('with %s the buffer is not touched at all', (_name, event) => {
  const b = buffer(true);
  expect(keepFormulaBuffer(event, b.port)).toBe(0);
  expect(b.calls).toEqual([]);
});

test.each(['holds', 'keep'] as const)('a failure in %s does not fail the trigger: 0 moved', (fail) => {
  const b = buffer(true, 3, fail);
  expect(keepFormulaBuffer({ authMode: 'FULL' }, b.port)).toBe(0);
});
