/**
 * Issue 48's "three profiles that answer 500": a bulk run over 600 new rows at 400-500 ms, and the same with three of
 * them (rows 100, 300 and 500) always answered 500 by the sandbox, side by side in three rounds: wall time and ratio
 * (bound: 1.2x). `npx tsx bench/lone500.ts` (about a minute).
 */
import { startSandbox } from '../sandbox/server';
import { ADDON, Deadline, foundProfiles, parseArgs } from './harness';
import { benchAddonBulk } from './runs';

async function main() {
  const config = parseArgs([]);
  const sandbox = await startSandbox({
    port: 0,
    organizations: [{ name: ADDON.org, keys: [ADDON.key], credits: 100000 }],
  });
  try {
    for (let round = 0; round < 3; round++) {
      const clean = foundProfiles(600, `c${round}x`);
      const broken = foundProfiles(600, `b${round}x`);
      for (const at of [100, 300, 500]) broken[at] = `https://www.network.com/in/broken-${round}-${at}`;
      const latency = { medianMs: 400, p99Ms: 500 };
      const a = await benchAddonBulk(config, sandbox, clean, new Deadline(300_000), { latency });
      const b = await benchAddonBulk(config, sandbox, broken, new Deadline(300_000), { latency });
      console.log(
        `round ${round}: clean ${(a.wallMs / 1000).toFixed(2)} s, with 3 x 500 ${(b.wallMs / 1000).toFixed(2)} s, ratio ${(b.wallMs / a.wallMs).toFixed(2)}; errors ${b.errorRows}`,
      );
    }
  } finally {
    await sandbox.close();
  }
}
void main();
