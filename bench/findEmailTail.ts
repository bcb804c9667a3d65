/**
 * Scenario 5 of `npm run bench`: =FINDEMAIL over 500 new rows at the long tail's latency, evaluated twice, against
 * one naive formula per cell.
 */
import { normalizeProfileUrl } from '../sandbox/profiles';
import type { SandboxServer } from '../sandbox/server';
import { type Config, type Deadline, fmt, makeUrls, type Timed, table } from './harness';
import { benchNaiveCells, newSpreadsheet } from './runs';

const NOT_REACHED = 'ERROR: Not looked up in time';

async function benchFindEmailTail(config: Config, sandbox: SandboxServer, urls: string[]) {
  const { env, ssId, last } = newSpreadsheet(sandbox, urls);
  try {
    env.enter(ssId, 'B2', [[`=FINDEMAIL(A2:A${last})`]]);
    sandbox.service.configure({ latencyMs: config.tailLatency });
    sandbox.service.resetLedger();
    const rounds = [];
    const paid = new Map<string, number>();
    for (let round = 0; round < 2; round++) {
      const before = sandbox.service.ledger().length;
      const started = performance.now();
      const report = await env.recalculate(ssId);
      const wallMs = performance.now() - started;
      const entries = sandbox.service.ledger().slice(before);
      let paidAgain = 0;
      for (const entry of entries) {
        if (entry.charged !== 1 || entry.networkUrl === undefined) continue;
        const key = normalizeProfileUrl(entry.networkUrl);
        if (paid.has(key)) paidAgain++;
        paid.set(key, (paid.get(key) ?? 0) + 1);
      }
      const cells = env.displayValues(ssId, `B2:B${last}`).map((row) => row[0]);
      rounds.push({
        wallMs,
        ok: report.results.every((r) => r.ok && !r.timedOut),
        answered: cells.filter((v) => v !== '' && !v.startsWith('#') && !v.startsWith('ERROR')).length,
        notReached: cells.filter((v) => v.startsWith(NOT_REACHED)).length,
        otherErrors: cells.filter(
          (v) => v.startsWith('#') || (v.startsWith('ERROR') && !v.startsWith(NOT_REACHED)),
        ).length,
        requests: entries.length,
        credits: entries.reduce((sum, entry) => sum + entry.charged, 0),
        paidAgain,
        peakInFlight: sandbox.service.maxConcurrent,
      });
    }
    return { rows: urls.length, rounds };
  } finally {
    await env.close();
  }
}

/** Scenario 5: the range formula over new rows, then one naive formula per cell, at the long tail's latency. */
export async function runRangeTail(
  config: Config,
  sandbox: SandboxServer,
  naiveDir: string,
  deadline: Deadline,
  timed: Timed,
  tailText: string,
) {
  console.log(`5. =FINDEMAIL over ${config.tailRangeRows} new rows at ${tailText}…`);
  deadline.check('the =FINDEMAIL long-tail bench');
  const tailRangeUrls = makeUrls(config.tailRangeRows, 0, config.seed + 4, 'g');
  const rangeTail = await timed('rangeTail', () => benchFindEmailTail(config, sandbox, tailRangeUrls));
  const naiveCellsTail = await timed('naiveCellsTail', () =>
    benchNaiveCells(sandbox, naiveDir, tailRangeUrls.slice(0, config.naiveTailCells), config.tailLatency),
  );
  return { rangeTail, naiveCellsTail };
}

type RangeTailFigures = Awaited<ReturnType<typeof runRangeTail>>;

export function rangeTailChecks({ rangeTail }: RangeTailFigures) {
  return {
    rangeTailEveryCellAnsweredOrToldWhy: rangeTail.rounds.every(
      (round) => round.ok && round.otherErrors === 0 && round.answered + round.notReached === rangeTail.rows,
    ),
    rangeTailNothingPaidTwice: rangeTail.rounds.every((round) => round.paidAgain === 0),
  };
}

/** The table of scenario 5 and its checks. */
export function reportRangeTail(config: Config, figures: RangeTailFigures, tailText: string): void {
  const { rangeTail, naiveCellsTail } = figures;
  const checks = rangeTailChecks(figures);

  const [round1, round2] = rangeTail.rounds;
  console.log(
    `\n5. =FINDEMAIL(A2:A${config.tailRangeRows + 1}) — one cell, ${config.tailRangeRows} new URLs, latency ${tailText}\n`,
  );
  console.log(
    table([
      ['', '1st evaluation', '2nd evaluation', `${naiveCellsTail.cells} × =NAIVE(cell), 1st`, '2nd'],
      [
        'wall time (s)',
        fmt(round1.wallMs / 1000, 1),
        fmt(round2.wallMs / 1000, 1),
        fmt(naiveCellsTail.first.wallMs / 1000, 1),
        fmt(naiveCellsTail.second.wallMs / 1000, 1),
      ],
      [
        'cells answered',
        String(round1.answered),
        String(round1.answered === rangeTail.rows ? round1.answered : round2.answered),
        String(naiveCellsTail.cells),
        String(naiveCellsTail.cells),
      ],
      ['cells "not looked up in time"', String(round1.notReached), String(round2.notReached), '0', '0'],
      [
        'executions killed or failed',
        String(round1.ok ? 0 : 1),
        String(round2.ok ? 0 : 1),
        String(naiveCellsTail.first.failedExecutions),
        String(naiveCellsTail.second.failedExecutions),
      ],
      [
        'credits',
        String(round1.credits),
        String(round2.credits),
        String(naiveCellsTail.first.credits),
        String(naiveCellsTail.second.credits),
      ],
      [
        'credits for profiles paid before',
        '0',
        String(round2.paidAgain),
        '0',
        String(naiveCellsTail.second.credits),
      ],
    ]),
  );
  console.log(
    `\n   every cell answered or told to use Refresh =FINDEMAIL cells: ${checks.rangeTailEveryCellAnsweredOrToldWhy ? 'yes' : 'NO'}; ` +
      `nothing paid twice: ${checks.rangeTailNothingPaidTwice ? 'yes' : 'NO'}`,
  );
}
