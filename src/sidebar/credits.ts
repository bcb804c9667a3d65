/** The Credits tab: what the credits log says (by period, by source, the last runs), and Export. */
import { dayText } from '../core/day';
import { MAX_EXPORT_STEPS } from '../core/limits';
import { numberText } from '../core/text';
import { $, button, listItem, onClick, orShowError, setText, showText } from './dom';
import { type CreditsExport, type CreditsSource, type CreditsSummary, call, type RunPlan } from './types';
import { count, creditsRunLine, recordText } from './words';

function sourceLine(source: CreditsSource): string {
  const you = source.mine ? ' (you)' : '';
  const who =
    source.source === 'formulas'
      ? `Formulas (=FINDEMAIL, ${source.payer})`
      : source.source === 'watch'
        ? `Watch of new rows, paid by ${source.payer}${you}`
        : `Runs of ${source.payer}${you}`;
  const lost = source.lost > 0 ? `, ${count(source.lost)} lost (maybe charged)` : '';
  return `${who}: ${numberText(source.credits, 'credit')}${lost}`;
}

function renderCredits(summary: CreditsSummary): void {
  const none = !(summary.hasLog && summary.total + summary.lostTotal > 0);
  $('credits-none').hidden = !none;
  $('credits-body').hidden = none;
  setText('credits-today-label', summary.day ? `Today (${dayText(summary.day)})` : 'Today');
  setText('credits-today', count(summary.today));
  setText('credits-7', count(summary.last7));
  setText('credits-30', count(summary.last30));
  setText('credits-total', count(summary.total));
  showText(
    'credits-lost',
    `Answers lost to connection failures (each may have been charged): ${count(summary.lostToday)} today, ${count(summary.lost7)} in 7 days, ${count(summary.lost30)} in 30 days, ${count(summary.lostTotal)} in all.`,
    summary.lostTotal !== 0,
  );
  $('credits-sources').replaceChildren(...summary.sources.map((source) => listItem(sourceLine(source))));
  $('credits-runs-block').hidden = summary.runs.length === 0;
  $('credits-runs').replaceChildren(
    ...summary.runs.map((run) => listItem(creditsRunLine(run), new Date(run.lastAt).toLocaleString())),
  );
  showText('credits-record', recordText(summary.total, summary.found));
  showText(
    'credits-unreadable',
    `${numberText(summary.unreadable, 'row')} of the log could not be read (edited by hand) and ${summary.unreadable === 1 ? 'is' : 'are'} left out of these figures.`,
    summary.unreadable !== 0,
  );
}

export async function loadCredits(): Promise<void> {
  const summary = await orShowError(call('getCreditsSummary'), 'Could not read the credits log');
  if (summary) renderCredits(summary);
}

/** Exports the credits log into a new sheet step by step, its progress in `statusId`; true when it got to the end. */
export async function exportLog(statusId = 'credits-export-status'): Promise<boolean> {
  const exportButton = button('credits-export');
  if (exportButton.disabled) return false;
  exportButton.disabled = true;
  setText(statusId, 'Exporting…');
  let step: CreditsExport | undefined;
  for (let n = 0; n <= MAX_EXPORT_STEPS && !step?.done; n++) {
    step = await orShowError(call('exportCreditsLog', step ?? {}), 'The export stopped');
    setText(statusId, step?.message ?? '');
    if (!step) break;
  }
  exportButton.disabled = false;
  return !!step?.done;
}

export function setupCredits(): void {
  onClick('credits-export', () => void exportLog());
  onClick('credits-refresh', () => void loadCredits());
}

/** Under a plan's price: a lookup costs a credit found or not, and this spreadsheet's record so far. */
export function missesText(plan: RunPlan): string {
  if (plan.refusal || plan.credits === 0) return '';
  const rule = 'The service charges one credit per lookup, whether or not it finds an address.';
  const record = plan.lookupRecord;
  return record && record.lookups > 0 ? `${rule} ${recordText(record.lookups, record.found)}` : rule;
}
