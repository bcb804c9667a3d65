/** The credits log summed up in one pass. Pure. */
import type { CreditsRun, CreditsSource, CreditsSummary } from '../api';
import { unquotedRange } from '../core/a1';
import { startOfDay } from '../core/day';
import { CREDITS_RUNS_SHOWN } from '../core/limits';
import { isBlankRow, isNoteRow, parseChargeRow } from './credits';

const DAY_MS = 24 * 3600 * 1000;
const SPENT_COUNTS = ['total', 'today', 'last7', 'last30'] as const;
const LOST_COUNTS = ['lostTotal', 'lostToday', 'lost7', 'lost30'] as const;

/** `rows` null: no log; `dayOf` tells the spreadsheet's days. */
export function summarizeCredits(
  rows: readonly unknown[][] | null,
  now: number,
  viewerPayerId: string,
  dayOf: (ms: number) => string,
): CreditsSummary {
  const summary: CreditsSummary = {
    hasLog: rows !== null,
    today: 0,
    last7: 0,
    last30: 0,
    total: 0,
    lostToday: 0,
    lost7: 0,
    lost30: 0,
    lostTotal: 0,
    found: 0,
    sources: [],
    runs: [],
    unreadable: 0,
    day: dayOf(now),
  };
  if (!rows) return summary;
  const midnight = startOfDay(now, dayOf);
  const sources = new Map<string, CreditsSource>();
  const runs = new Map<string, CreditsRun>();
  for (const row of rows) {
    const charge = parseChargeRow(row);
    if (!charge) {
      if (!isBlankRow(row) && !isNoteRow(row)) summary.unreadable++;
      continue;
    }
    const lost = charge.outcome === 'lost';
    const age = now - charge.at;
    const [total, today, last7, last30] = lost ? LOST_COUNTS : SPENT_COUNTS;
    summary[total]++;
    if (charge.outcome === 'found') summary.found++;
    if (charge.at >= midnight) summary[today]++;
    if (age < 7 * DAY_MS) summary[last7]++;
    if (age < 30 * DAY_MS) summary[last30]++;
    const mine = charge.source !== 'formulas' && charge.payerId !== '' && charge.payerId === viewerPayerId;
    const sourceKey = `${charge.source} ${charge.payerId} ${charge.payer}`;
    const source = sources.get(sourceKey) ?? {
      source: charge.source,
      payer: charge.payer,
      mine,
      credits: 0,
      lost: 0,
    };
    source[lost ? 'lost' : 'credits']++;
    sources.set(sourceKey, source);
    const match = charge.source === 'run' ? /^run (\S+) · (.*)$/.exec(charge.where) : null;
    if (!match) continue;
    const run = { runId: match[1], range: unquotedRange(match[2]) };
    const entry = runs.get(run.runId) ?? {
      ...run,
      payer: charge.payer,
      mine,
      lastAt: 0,
      credits: 0,
      found: 0,
      lost: 0,
    };
    entry.lastAt = Math.max(entry.lastAt, charge.at);
    entry[lost ? 'lost' : 'credits']++;
    if (charge.outcome === 'found') entry.found++;
    runs.set(run.runId, entry);
  }
  summary.sources = [...sources.values()].sort((a, b) => b.credits + b.lost - (a.credits + a.lost));
  summary.runs = [...runs.values()].sort((a, b) => b.lastAt - a.lastAt).slice(0, CREDITS_RUNS_SHOWN);
  return summary;
}
