import { canReuse, cellsAt, choosePlacement, placementOptions } from '../../src/bulk/placement';
import { outputHeaders } from '../../src/core/cells';
import { columnRead, owning } from '../support/columnRead';

const TITLES = outputHeaders(false);
const EXTRA_TITLES = outputHeaders(true);
const URL = 'https://network.com/in/a';

const read = columnRead;

describe('cellsAt', () => {
  it('reads blank beyond a short row, and for a missing row', () => {
    expect(cellsAt(['u', 'x'], 1, 3)).toEqual(['x', '', '']);
    expect(cellsAt(null, 0, 2)).toEqual(['', '']);
  });
});

describe('canReuse', () => {
  /** The output cells of each row (URL cell first, as a read has them) under `header`'s output titles. */
  const block = (outputs: unknown[][], header: unknown[] | null = ['Profile']) =>
    read(
      outputs.map((cells) => [URL, ...cells]),
      header,
    );

  it("takes columns titled with the add-on's headers over the add-on's own rows, whatever they hold", () => {
    expect(canReuse(owning(block([['user text', 'yes', 'no', '']], ['Profile', ...TITLES])), 1, 4)).toBe(
      true,
    );
  });

  it("titles alone do not make a person's rows the add-on's: outside its blocks, their cells are refused", () => {
    expect(canReuse(block([['user text', 'yes', 'no', '']], ['Profile', ...TITLES]), 1, 4)).toBe(false);
  });

  it('takes columns empty in every row', () => {
    expect(
      canReuse(
        block([
          ['', '', '', ''],
          [null, undefined, '', ''],
        ]),
        1,
        4,
      ),
    ).toBe(true);
  });

  it("refuses a user's column of YES/NO (an upper-case word without an address beside it)", () => {
    expect(canReuse(block([['', 'YES', '', '']], null), 1, 4)).toBe(false);
  });

  it("refuses a header of the user's above the add-on's own output", () => {
    expect(canReuse(owning(block([['', 'NOT_FOUND', '', '']], ['Profile', 'Notes'])), 1, 4)).toBe(false);
  });

  it("takes the add-on's own output inside its recorded blocks, and only there: the look never decides", () => {
    const outputs = [
      ['', '', '', ''],
      ['jane@acme.test', 'VALID', true, ''],
      ['', 'NOT_FOUND', '', 'no address'],
      ['', '', '', ''],
    ];
    expect(canReuse(owning(block(outputs)), 1, 4)).toBe(true);
    expect(canReuse(block(outputs), 1, 4)).toBe(false);
  });

  it("refuses when one row outside the add-on's block holds something of the user's", () => {
    const outputs = [
      ['jane@acme.test', 'VALID', true, ''],
      ['my note', '', '', ''],
    ];
    const first = block(outputs);
    // The block owns row 2 only; row 3's note is the person's.
    expect(canReuse({ ...first, owned: new Map([[2, [[2, 2]]]]) }, 1, 4)).toBe(false);
    expect(canReuse(owning(first), 1, 4)).toBe(true);
  });

  it('reads the owned rows of the columns where they start: a block further right owns nothing beside the URLs', () => {
    const outputs = [['jane@acme.test', 'VALID', true, '']];
    expect(canReuse(owning(block(outputs), 3), 1, 4)).toBe(false);
    expect(canReuse(owning(block([['', ...outputs[0]]]), 3), 2, 4)).toBe(true);
  });

  it('looks at the extra columns when the run writes them', () => {
    const outputs = [['jane@acme.test', 'VALID', false, '', '', 'user name']];
    expect(canReuse(owning(block(outputs)), 1, 4)).toBe(true);
    // With Account type and Name, the sixth column is the run's: the user's text there is not free.
    expect(canReuse(block([['', '', '', '', '', 'user name']], null), 1, 6)).toBe(false);
  });
});

describe('placementOptions', () => {
  it('offers the empty columns beside the URLs alone, nothing moving', () => {
    const options = placementOptions(read([[URL], [URL]]), false);
    expect(options).toHaveLength(1);
    expect(options[0]).toMatchObject({
      kind: 'reuse',
      outputColumn: 2,
      insertAfter: null,
      insertCount: 0,
      columns: 'B:E',
    });
  });

  it("offers inserting or the first free columns when the user's data is beside the URLs", () => {
    const rows = [
      [URL, 'Acme', 'CEO', '', '', '', ''],
      [URL, 'Beta', '', '', '', '', ''],
    ];
    const options = placementOptions(read(rows, ['Profile', 'Company', 'Title']), false);
    expect(options.map((option) => option.kind)).toEqual(['insert', 'right']);
    expect(options[0]).toMatchObject({ outputColumn: 2, insertAfter: 1, insertCount: 4, columns: 'B:E' });
    // Column B (Company) and C (Title) are the user's: the first four free columns start at D.
    expect(options[1]).toMatchObject({ outputColumn: 4, insertAfter: null, insertCount: 0, columns: 'D:G' });
  });

  it("never places the results over a user's cell in the rows below the header", () => {
    const rows = [
      [URL, 'x', '', '', '', '', '', ''],
      [URL, '', '', '', '', 'late note', '', ''],
    ];
    const right = placementOptions(read(rows, ['Profile']), false).find((option) => option.kind === 'right');
    // B holds x and F a note: every block of four starting at C, D, E or F covers F; the first free one starts at G.
    expect(right).toMatchObject({ outputColumn: 7, columns: 'G:J' });
  });

  it("adds the columns past the sheet's right edge at its end, rather than skipping one", () => {
    const options = placementOptions(read([[URL]], ['Profile'], 3), false);
    expect(options[0]).toMatchObject({
      kind: 'reuse',
      outputColumn: 2,
      insertAfter: 3,
      insertCount: 2,
      columns: 'B:E',
    });
  });

  it('counts the missing columns of the first free block at the edge', () => {
    const rows = [[URL, 'a', 'b', 'c']];
    const right = placementOptions(read(rows, ['Profile', 'A', 'B', 'C'], 4), false)[1];
    expect(right).toMatchObject({
      kind: 'right',
      outputColumn: 5,
      insertAfter: 4,
      insertCount: 4,
      columns: 'E:H',
    });
  });

  it("keeps the add-on's four columns and offers to extend them for the extra fields", () => {
    const rows = [[URL, 'jane@acme.test', 'VALID', false, '', 'the user', 'data']];
    const options = placementOptions(owning(read(rows, ['Profile', ...TITLES, 'Mine', 'Also'])), true);
    expect(options).toHaveLength(1);
    expect(options[0]).toMatchObject({
      kind: 'extend',
      outputColumn: 2,
      insertAfter: 5,
      insertCount: 2,
      columns: 'B:G',
    });
  });

  it("reuses the add-on's four columns and the two empty ones after them for the extra fields", () => {
    const rows = [[URL, 'jane@acme.test', 'VALID', false, '']];
    const options = placementOptions(owning(read(rows, ['Profile', ...TITLES])), true);
    expect(options).toEqual([
      expect.objectContaining({ kind: 'reuse', outputColumn: 2, insertCount: 0, columns: 'B:G' }),
    ]);
  });

  it("reuses all six columns titled with the add-on's headers over the add-on's rows", () => {
    const rows = [[URL, 'x@acme.test', 'VALID', true, '', 'professional', 'X']];
    expect(placementOptions(owning(read(rows, ['Profile', ...EXTRA_TITLES]), 2, 6), true)[0].kind).toBe(
      'reuse',
    );
  });

  it('reads a sheet without a header row', () => {
    const options = placementOptions(read([[URL, 'Acme']], null), false);
    expect(options.map((option) => option.kind)).toEqual(['insert', 'right']);
    expect(options[1].outputColumn).toBe(3);
  });
});

describe('choosePlacement', () => {
  const options = placementOptions(read([[URL, 'Acme']], ['Profile', 'Company']), false);

  it('takes the one chosen, or the first offered', () => {
    expect(choosePlacement(options, false, 'right').kind).toBe('right');
    expect(choosePlacement(options, false).kind).toBe('insert');
    expect(choosePlacement(options, false, 'extend').kind).toBe('insert');
  });

  it('never inserts columns for a retry, whatever was chosen', () => {
    expect(choosePlacement(options, true, 'insert').kind).toBe('right');
  });
});
