/** Scenario 2 of `npm run bench`: =FINDEMAIL over a range of 100 rows at 1 s, against one naive formula per cell. */
import type { SandboxServer } from '../sandbox/server';
import {
  ADDON,
  type Config,
  CUSTOM_FUNCTION_LIMIT_S,
  type Deadline,
  distinctCount,
  fmt,
  type Timed,
  table,
  verdict,
} from './harness';
import { benchNaiveCells, evaluationOf, newSpreadsheet, recalcRound } from './runs';

const TARGET_RANGE_S = 10;

async function benchFindEmail(config: Config, sandbox: SandboxServer, urls: string[]) {
  const { env, ssId, last } = newSpreadsheet(sandbox, urls);
  try {
    env.enter(ssId, 'B2', [[`=FINDEMAIL(A2:A${last})`]]);
    sandbox.service.configure({ latencyMs: config.rangeLatencyMs });
    const first = await recalcRound(env, ssId, sandbox, ADDON.org);
    const cells = env.displayValues(ssId, `B2:B${last}`).map((row) => row[0]);
    const resultCells = cells.filter((value) => value !== '' && !value.startsWith('#')).length;
    // Scenario 9a: the same evaluation as the emulator measured it.
    const evaluation = evaluationOf(env, first.executions[0], ssId, `B2:B${last}`);
    const second = await recalcRound(env, ssId, sandbox, ADDON.org);
    const { executions: _first, ...firstFigures } = first;
    const { executions: _second, ...secondFigures } = second;
    return {
      rows: urls.length,
      distinctUrls: distinctCount(urls),
      first: firstFigures,
      second: secondFigures,
      resultCells,
      asRangeFormula: {
        profiles: urls.length,
        rounds: [evaluation],
        credits: first.credits,
        maxChargesPerUrl: first.maxChargesPerUrl,
        peakInFlight: first.peakInFlight,
      },
    };
  } finally {
    await env.close();
  }
}

/** Scenario 2: the range formula evaluated twice, then one naive formula per cell evaluated twice. */
export async function runRange(
  config: Config,
  sandbox: SandboxServer,
  naiveDir: string,
  rangeUrls: string[],
  deadline: Deadline,
  timed: Timed,
) {
  deadline.check('the =FINDEMAIL bench');
  console.log(`2. =FINDEMAIL over ${config.rangeRows} rows at ${config.rangeLatencyMs} ms latency…`);
  const findEmail = await timed('findEmail', () => benchFindEmail(config, sandbox, rangeUrls));
  deadline.check('the naive custom-function bench');
  const naiveCells = await timed('naiveCells', () =>
    benchNaiveCells(sandbox, naiveDir, rangeUrls, config.rangeLatencyMs),
  );
  return { findEmail, naiveCells };
}

type RangeFigures = Awaited<ReturnType<typeof runRange>>;

export function rangeChecks({ findEmail }: RangeFigures) {
  return {
    rangeAllCells: findEmail.first.failedExecutions === 0 && findEmail.resultCells === findEmail.rows,
    rangeSecondFree: findEmail.second.credits === 0 && findEmail.second.requests === 0,
  };
}

export function rangeTargets({ findEmail }: RangeFigures) {
  return {
    rangeUnder10s: findEmail.first.wallMs < TARGET_RANGE_S * 1000,
  };
}

/** The table of scenario 2 and its verdict. */
export function reportRange(config: Config, figures: RangeFigures): void {
  const { findEmail, naiveCells } = figures;
  const targets = rangeTargets(figures);
  const checks = rangeChecks(figures);

  console.log(
    `\n2. =FINDEMAIL(A2:A${config.rangeRows + 1}) — one cell, ${config.rangeRows} distinct URLs, sandbox latency ${config.rangeLatencyMs} ms\n`,
  );
  console.log(
    table([
      ['', '=FINDEMAIL(range), 1st', '2nd recalc', `${config.rangeRows} × =NAIVE(cell), 1st`, '2nd recalc'],
      [
        'wall time (s)',
        fmt(findEmail.first.wallMs / 1000, 2),
        fmt(findEmail.second.wallMs / 1000, 2),
        fmt(naiveCells.first.wallMs / 1000, 2),
        fmt(naiveCells.second.wallMs / 1000, 2),
      ],
      [
        'executions',
        String(findEmail.first.evaluated),
        String(findEmail.second.evaluated),
        String(naiveCells.first.evaluated),
        String(naiveCells.second.evaluated),
      ],
      [
        'peak requests in flight',
        String(findEmail.first.peakInFlight),
        String(findEmail.second.peakInFlight),
        String(naiveCells.first.peakInFlight),
        String(naiveCells.second.peakInFlight),
      ],
      [
        'requests',
        String(findEmail.first.requests),
        String(findEmail.second.requests),
        String(naiveCells.first.requests),
        String(naiveCells.second.requests),
      ],
      [
        'credits',
        String(findEmail.first.credits),
        String(findEmail.second.credits),
        String(naiveCells.first.credits),
        String(naiveCells.second.credits),
      ],
    ]),
  );
  console.log(
    `\n   =FINDEMAIL range: ${fmt(findEmail.first.wallMs / 1000, 2)} s of the ${CUSTOM_FUNCTION_LIMIT_S} s limit — ` +
      `target < ${TARGET_RANGE_S} s: ${verdict('range time', targets.rangeUnder10s)}; cells with a result ${findEmail.resultCells}/${findEmail.rows}; ` +
      `2nd recalc charges 0: ${checks.rangeSecondFree ? 'yes' : 'NO'}`,
  );
  console.log(
    '   =NAIVE cells run as separate custom-function executions, in waves of 30 (Apps Script’s limit per user), at most 16 at once (the emulator’s maxConcurrent).',
  );
}
