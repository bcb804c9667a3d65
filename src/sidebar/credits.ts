/** The Credits tab: what the credits log says (by period, by source, the last runs), and Export. */
import { dayText } from '../core/day';
import { MAX_EXPORT_STEPS } from '../core/limits';
import { call, failureMessage } from './client';
import { $, button, setText, showError } from './dom';
import type { CreditsExport, CreditsSummary, RunPlan } from './types';
import { creditsRunLine, recordText } from './words';

const count = (n: number) => n.toLocaleString('en-US');
const credits = (n: number) => `${count(n)} ${n === 1 ? 'credit' : 'credits'}`;

let exporting = false;

function item(text: string, detail?: string): HTMLLIElement {
  const li = document.createElement('li');
  li.textContent = text;
  if (detail) {
    const when = document.createElement('div');
    when.className = 'when';
    when.textContent = detail;
    li.append(when);
  }
  return li;
}

function sourceLine(source: CreditsSummary['sources'][number]): string {
  const you = source.mine ? ' (you)' : '';
  const who =
    source.source === 'formulas'
      ? `Formulas (=FINDEMAIL, ${source.payer})`
      : source.source === 'watch'
        ? `Watch of new rows, paid by ${source.payer}${you}`
        : `Runs of ${source.payer}${you}`;
  const lost = source.lost > 0 ? `, ${count(source.lost)} lost (maybe charged)` : '';
  return `${who}: ${credits(source.credits)}${lost}`;
}

export function renderCredits(summary: CreditsSummary): void {
  $('credits-none').hidden = summary.hasLog && summary.total + summary.lostTotal > 0;
  $('credits-body').hidden = !$('credits-none').hidden;
  setText('credits-today-label', summary.day ? `Today (${dayText(summary.day)})` : 'Today');
  setText('credits-today', count(summary.today));
  setText('credits-7', count(summary.last7));
  setText('credits-30', count(summary.last30));
  setText('credits-total', count(summary.total));
  $('credits-lost').hidden = summary.lostTotal === 0;
  setText(
    'credits-lost',
    `Answers lost to connection failures (each may have been charged): ${count(summary.lostToday)} today, ${count(summary.lost7)} in 7 days, ${count(summary.lost30)} in 30 days, ${count(summary.lostTotal)} in all.`,
  );
  const sources = $('credits-sources');
  sources.textContent = '';
  for (const source of summary.sources) sources.append(item(sourceLine(source)));
  const runs = $('credits-runs');
  runs.textContent = '';
  $('credits-runs-block').hidden = summary.runs.length === 0;
  for (const run of summary.runs)
    runs.append(item(creditsRunLine(run), new Date(run.lastAt).toLocaleString()));
  const record = recordText(summary.total, summary.found);
  $('credits-record').hidden = record === '';
  setText('credits-record', record);
  $('credits-unreadable').hidden = summary.unreadable === 0;
  setText(
    'credits-unreadable',
    `${count(summary.unreadable)} ${summary.unreadable === 1 ? 'row' : 'rows'} of the log could not be read (edited by hand) and ${summary.unreadable === 1 ? 'is' : 'are'} left out of these figures.`,
  );
}

export async function loadCredits(): Promise<void> {
  try {
    renderCredits(await call('getCreditsSummary'));
  } catch (error) {
    showError(`Could not read the credits log: ${failureMessage(error)}`);
  }
}

/** Exports the credits log into a new sheet, step by step, its progress in `statusId`; whether it got to the end. */
export async function exportLog(statusId = 'credits-export-status'): Promise<boolean> {
  if (exporting) return false;
  exporting = true;
  const exportButton = button('credits-export');
  exportButton.disabled = true;
  setText(statusId, 'Exporting…');
  try {
    let step: CreditsExport = await call('exportCreditsLog', {});
    setText(statusId, step.message);
    for (let n = 0; !step.done && n < MAX_EXPORT_STEPS; n++) {
      step = await call('exportCreditsLog', step);
      setText(statusId, step.message);
    }
    return step.done;
  } catch (error) {
    setText(statusId, '');
    showError(`The export stopped: ${failureMessage(error)}`);
    return false;
  } finally {
    exporting = false;
    exportButton.disabled = false;
  }
}

export function setupCredits(): void {
  button('credits-export').addEventListener('click', () => void exportLog());
  button('credits-refresh').addEventListener('click', () => void loadCredits());
}

/** Under a plan's price: a lookup costs a credit found or not, and this spreadsheet's record so far. */
export function missesText(plan: RunPlan): string {
  if (plan.refusal || plan.credits === 0) return '';
  const rule = 'The service charges one credit per lookup, whether or not it finds an address.';
  const record = plan.lookupRecord;
  return record && record.lookups > 0 ? `${rule} ${recordText(record.lookups, record.found)}` : rule;
}
