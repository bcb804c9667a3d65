/**
 * The simple triggers' fold of the batches formulas paid for into the hidden sheets: only where the trigger may
 * read and write (LIMITED, FULL), only when a batch waits to be folded, and never failing the trigger.
 */
import { foldOnTrigger } from '../../src/formula/triggerFold';
import type { Folding } from '../../src/store/ports';

function folding(waiting: boolean, folded = 3, fail?: 'waiting' | 'fold') {
  const calls: string[] = [];
  const port: Folding = {
    waiting() {
      calls.push('waiting');
      if (fail === 'waiting') throw new Error('Service invoked too many times for one day: properties.');
      return waiting;
    },
    fold() {
      calls.push('fold');
      if (fail === 'fold') throw new Error('Exception: Service Spreadsheets failed');
      return folded;
    },
  };
  return { port, calls };
}

test.each(['LIMITED', 'FULL'])(
  'in AuthMode.%s waiting batches are folded, and the count returned',
  (mode) => {
    const f = folding(true, 4);
    expect(foldOnTrigger({ authMode: mode }, f.port)).toBe(4);
    expect(f.calls).toEqual(['waiting', 'fold']);
  },
);

test('an authMode given as an object with the enum name (as Apps Script passes it) is read by its text', () => {
  const f = folding(true, 2);
  expect(foldOnTrigger({ authMode: { toString: () => 'LIMITED' } }, f.port)).toBe(2);
});

test('nothing waiting is only looked at: nothing folded', () => {
  const f = folding(false);
  expect(foldOnTrigger({ authMode: 'LIMITED' }, f.port)).toBe(0);
  expect(f.calls).toEqual(['waiting']);
});

test.each([
  ['AuthMode.NONE', { authMode: 'NONE' }],
  ['no authMode', {}],
  ['no event', undefined],
  ['a lowercase mode', { authMode: 'limited' }],
])('with %s the batches are not touched at all', (_name, event) => {
  const f = folding(true);
  expect(foldOnTrigger(event, f.port)).toBe(0);
  expect(f.calls).toEqual([]);
});

test.each(['waiting', 'fold'] as const)('a failure in %s does not fail the trigger: 0 folded', (fail) => {
  const f = folding(true, 3, fail);
  expect(foldOnTrigger({ authMode: 'FULL' }, f.port)).toBe(0);
});
