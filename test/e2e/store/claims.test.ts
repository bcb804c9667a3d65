/**
 * Two formulas over more than 1,000 new URLs at once pay exactly once per URL: the sending record in the document
 * properties, written under the lock before any request of it leaves, is what another execution reads.
 */
import { normalizeProfileUrl } from '../../../sandbox/profiles';
import { LOCK_QUOTA, OWNER, startWorld, url, type World } from '../../support/harness';
import { column, emailOf } from '../formula/helpers';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const COUNT = 1100;
const urls = Array.from({ length: COUNT }, (_, i) => url(`two-cells-${i}-mix`));

/** Two range formulas over the same 1,100 new URLs, evaluated at once; then again until every row shows. */
async function twoFormulasAtOnce(w: World): Promise<{ duplicates: number; charged: number; rounds: number }> {
  // This is about paying once, not the owner's daily limit for formulas (500 by default): the owner raises it.
  await w.env.run('saveFormulaCap', [{ enabled: true, dailyCap: 5000 }], w.as(OWNER));
  w.ss.sheets[0].insertRows(1000, 200, w.ss.sheets);
  w.env.enter(
    w.ss.id,
    `A1:A${COUNT}`,
    urls.map((u) => [u]),
  );
  w.env.enter(w.ss.id, 'B1', [[`=FINDEMAIL(A1:A${COUNT})`]]);
  w.env.enter(w.ss.id, 'C1', [[`=FINDEMAIL(A1:A${COUNT})`]]);
  const expected = urls.map(emailOf);
  let rounds = 0;
  for (; rounds < 8; rounds++) {
    const report = await w.env.recalculate(w.ss.id);
    expect(report.evaluated).toBe(2);
    const done =
      JSON.stringify(column(w, `B1:B${COUNT}`)) === JSON.stringify(expected) &&
      JSON.stringify(column(w, `C1:C${COUNT}`)) === JSON.stringify(expected);
    if (done) break;
  }
  const charges = Object.values(w.charges());
  return {
    duplicates: charges.reduce((sum, n) => sum + (n - 1), 0),
    charged: charges.length,
    rounds,
  };
}

test(`two formulas over ${COUNT} new URLs at once pay exactly once per URL`, async () => {
  world = await startWorld({ env: LOCK_QUOTA, credits: 5000, faults: { latencyMs: [0, 5] } });
  const outcome = await twoFormulasAtOnce(world);
  expect(outcome.rounds).toBeLessThan(8);
  expect(outcome.charged).toBe(COUNT);
  expect(outcome.duplicates).toBe(0);
  expect(Object.keys(world.charges()).sort()).toEqual(urls.map(normalizeProfileUrl).sort());
}, 120_000);
