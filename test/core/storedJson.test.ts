/** Stored JSON read back with its fields checked (src/core/storedJson.ts). */
import { checkedRecord, type FieldSpecs, parseStored, storedRecord } from '../../src/core/storedJson';

interface Kept {
  name: string;
  count: number;
  when: number | null;
  tags?: string[];
}

const FIELDS: FieldSpecs<Kept> = { name: 'string', count: 'number', when: 'number|null', tags: 'array?' };

describe('stored JSON', () => {
  it('reads a record whose fields hold what they must, optional ones absent or of their type', () => {
    const kept = { name: 'a', count: 2, when: null };
    expect(storedRecord<Kept>(JSON.stringify(kept), FIELDS)).toEqual(kept);
    expect(storedRecord<Kept>(JSON.stringify({ ...kept, when: 5, tags: ['x'] }), FIELDS)).toEqual({
      ...kept,
      when: 5,
      tags: ['x'],
    });
  });

  it('reads nothing from no value, text that is not JSON, or JSON that is not an object', () => {
    for (const raw of [null, undefined, '', '{cut sh', '0', '"text"', '[1,2]', 'null'])
      expect(storedRecord<Kept>(raw, FIELDS)).toBeNull();
    expect(parseStored('{cut sh')).toBeUndefined();
    expect(parseStored('[1]')).toEqual([1]);
  });

  it('reads nothing when a field is missing or holds another type', () => {
    expect(checkedRecord<Kept>({ name: 'a', when: null }, FIELDS)).toBeNull();
    expect(checkedRecord<Kept>({ name: 'a', count: '2', when: null }, FIELDS)).toBeNull();
    expect(checkedRecord<Kept>({ name: 'a', count: 2 }, FIELDS)).toBeNull();
    expect(checkedRecord<Kept>({ name: 'a', count: 2, when: null, tags: 'x' }, FIELDS)).toBeNull();
    expect(checkedRecord<Kept>({ name: 'a', count: 2, when: null, tags: null }, FIELDS)).toBeNull();
  });
});
