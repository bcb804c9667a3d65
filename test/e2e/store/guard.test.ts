/**
 * The hidden sheets guard themselves: the results sheet and the credits log are protected with a warning only, so a
 * person who unhides one and edits it is warned first, while every editor's executions still write them.
 */

import { ProtectionWarningError } from '../../../emulator';
import { CREDITS_SHEET, RESULTS_SHEET } from '../../../src/core/propertyNames';
import { TABLE_TITLE } from '../../../src/store/table';
import {
  API_KEY_PROPERTY,
  EDITOR,
  EDITOR_KEY,
  OWNER,
  startWorld,
  url,
  type World,
} from '../../support/harness';
import { drive, start } from '../bulk/helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const profile = (i: number) => url(`guarded-${i}-lead`);

/** The credits log's rows (without its header) as [time, kind, person, …]. */
const logRows = (w: World) =>
  w.env.values(w.ss.id, 'A2:G40', CREDITS_SHEET).filter((row) => row.some((cell) => cell !== ''));

describe('the hidden sheets', () => {
  it("warn a person who edits them by hand, and every editor's run still writes them", async () => {
    world = await startWorld({ data: [['Profile URL'], [profile(1)], [profile(2)]] });
    const w = world;
    await start(w, 'A1:A3');
    expect((await drive(w)).state).toBe('done');
    for (const name of [RESULTS_SHEET, CREDITS_SHEET]) {
      expect(w.ss.sheetByName(name)?.protection).toEqual({
        warningOnly: true,
        description: expect.stringMatching(/Profile Email Finder .* editing, sorting or deleting this sheet/),
      });
    }
    expect(w.ss.sheetByName(RESULTS_SHEET)?.protection?.description).toMatch(/profiles are paid again/);

    // Another editor's run, on their own key, writes both sheets without a warning (scripts are not asked).
    w.env.userProperties(EDITOR).set({ [API_KEY_PROPERTY]: EDITOR_KEY });
    w.env.enter(w.ss.id, 'A4:A5', [[profile(3)], [profile(4)]]);
    w.env.select(w.ss.id, 'A4:A5');
    const plan = (await w.env.run('getRunPlan', [{}], w.as(EDITOR))) as { credits: number };
    expect(plan.credits).toBe(2);
    await w.env.run('startRun', [{ confirmedCredits: plan.credits }], w.as(EDITOR));
    for (let slice = 0; slice < 50; slice++) {
      const progress = (await w.env.run('continueEnrichment', [], w.as(EDITOR))) as { state: string };
      if (progress.state !== 'running') break;
    }
    expect(logRows(w).map((row) => row[2])).toEqual([OWNER, OWNER, EDITOR, EDITOR]);
    expect(Object.values(w.charges())).toEqual([1, 1, 1, 1]);
    expect(w.env.protectionWarnings).toEqual([]);

    // The editor unhides the results sheet and types over its title: warned, they cancel, nothing changes.
    await expect(
      w.env.edit(w.ss.id, 'A1', [['mine now']], { user: EDITOR, sheetName: RESULTS_SHEET }),
    ).rejects.toThrow(ProtectionWarningError);
    expect(w.env.values(w.ss.id, 'A1', RESULTS_SHEET)).toEqual([[TABLE_TITLE]]);
    await expect(
      w.env.edit(w.ss.id, 'A2', [['']], { user: EDITOR, sheetName: CREDITS_SHEET }),
    ).rejects.toThrow(ProtectionWarningError);
    expect(logRows(w)).toHaveLength(4);
    expect(w.env.protectionWarnings).toEqual([
      { spreadsheetId: w.ss.id, sheetName: RESULTS_SHEET, user: EDITOR },
      { spreadsheetId: w.ss.id, sheetName: CREDITS_SHEET, user: EDITOR },
    ]);
    // Warned, a person may still go on: the protection only asks.
    await w.env.edit(w.ss.id, 'A1', [['mine now']], {
      user: EDITOR,
      sheetName: RESULTS_SHEET,
      confirmWarning: true,
    });
    expect(w.env.values(w.ss.id, 'A1', RESULTS_SHEET)).toEqual([['mine now']]);
  });
});
