/** The sidebar drives its user's running run (continueEnrichment again and again) and watches someone else's. */
import { DRIVE_ATTEMPTS, MAX_IDLE_WAIT_MS, PROGRESS_LOOK_MS, WATCH_INTERVAL_MS } from '../core/limits';
import { $, clearError, every, orShowError, showError, sleep } from './dom';
import { isUnderWay, pausedByClosedSidebar } from './progress';
import { refreshProgress, renderProgress, setProgress } from './progressView';
import { type Halt, ui } from './state';
import { call, failureMessage, type Progress } from './types';

/** Bumped by Pause and Cancel: a drive of an older generation stops and discards its answers. */
let generation = 0;
let watching = false;
/** continueEnrichment calls under way of any drive: a page runs 10 calls at once, a click must find one free. */
const slicesUnderWay = new Set<Promise<Progress>>();
/** Apps Script refused an execution ("too many scripts running simultaneously", "invoked too many times"). */
const TOO_MANY_EXECUTIONS = /too many scripts running simultaneously|invoked too many times/i;

/**
 * While the run is running, calls continueEnrichment in as many lanes at once as the server's latest figure of
 * slices says; a lane past the figure ends, and the run's end shows once every lane's last answer is in.
 */
export async function drive(): Promise<void> {
  if (ui.driving || ui.progress.state !== 'running' || ui.progress.readOnly) return;
  const mine = ++generation;
  ui.driving = true;
  ui.progress = { ...ui.progress, waiting: false };
  renderProgress();
  const open = new Set<number>();
  const lanes: Promise<void>[] = [];
  const figureOf = (seen: Progress) => Math.max(1, seen.slices ?? 1);
  let figure = figureOf(ui.progress);
  // The run ended (paused, stopped, done) in one lane's answer: shown once the others have written their batch.
  let ended: Progress | undefined;
  const going = () => mine === generation && ui.progress.state === 'running' && !ended;
  const widen = () => {
    for (let index = 0; index < figure; index++) {
      if (open.has(index) || (index > 0 && slicesUnderWay.size >= figure)) continue;
      open.add(index);
      lanes.push(lane(index));
    }
  };
  async function lane(index: number): Promise<void> {
    const first = index === 0;
    let failures = 0;
    let idleRounds = 0;
    let answered = ui.progress.processed;
    try {
      while (going()) {
        let next: Progress;
        try {
          const work: Promise<Progress> = call('continueEnrichment').finally(() =>
            slicesUnderWay.delete(work),
          );
          slicesUnderWay.add(work);
          widen();
          next = await work;
        } catch (error) {
          if (mine !== generation) return refreshAfterActions();
          const message = failureMessage(error);
          if (!first && TOO_MANY_EXECUTIONS.test(message)) return;
          if (++failures >= DRIVE_ATTEMPTS) {
            if (first) showError(`The run could not go on: ${message} Press Resume to try again.`);
            return;
          }
          if (first) showError(`The run could not go on (${message}). Trying again…`);
          await sleep(1000 * 2 ** (failures - 1));
          continue;
        }
        // A Pause or Cancel pressed meanwhile: its answer is shown, then the sheet as this slice left it.
        if (mine !== generation) return refreshAfterActions();
        if (failures > 0 && first) clearError();
        failures = 0;
        if (next.state !== 'running') {
          if (!ended || figuresOf(next) >= figuresOf(ended)) ended = next;
          return;
        }
        // Answers of lanes arrive in any order: a running run's count only goes up.
        if (ui.progress.state === 'running' && next.processed >= ui.progress.processed) setProgress(next);
        figure = figureOf(next);
        // The other calls under way cover the figure (the run's last windows): one lane fewer, or the first waits.
        const covered = slicesUnderWay.size >= figure;
        if (index >= figure || (covered && !first)) return;
        // Or no progress (another execution holds the rows): the next call waits for another's answer, or a while.
        idleRounds = next.processed === answered ? idleRounds + 1 : 0;
        answered = next.processed;
        if (covered || idleRounds > 0) {
          const wait = sleep(Math.min(MAX_IDLE_WAIT_MS, 1000 * Math.max(1, idleRounds)));
          await Promise.race([wait, ...slicesUnderWay]).catch(() => undefined);
        }
      }
    } finally {
      open.delete(index);
    }
  }
  try {
    widen();
    const settled = (async () => {
      for (let done = 0; done < lanes.length; done++) await lanes[done];
    })();
    // The run's figure of slices grows with its pace: the progress looks meanwhile say so too.
    await lookWhile(settled, going, (seen) => {
      figure = figureOf(seen);
      widen();
    });
    if (ended && mine === generation) setProgress(ended);
    if (ended && mine === generation && $('error-text').textContent?.startsWith('The run could not'))
      clearError();
  } finally {
    if (mine === generation) {
      ui.driving = false;
      renderProgress();
      // Paused by another sidebar of this person as it closed (its call arrived late): this one is open.
      if (pausedByClosedSidebar(ui.progress)) follow();
    }
  }
}

/** How far an answer went: rows and credits only go up while the run goes on. */
const figuresOf = (p: Progress) => p.processed + p.creditsUsed + p.creditsMaybeLost;

/**
 * While `work` (calls working on this user's run) is on its way, shows the progress its slices save after each batch
 * when the run went further; `current` is false once Pause or Cancel was pressed; `looked` hears each look.
 */
export function lookWhile<T>(
  work: Promise<T>,
  current = () => true,
  looked: (seen: Progress) => void = () => {},
): Promise<T> {
  let pending = true;
  const settled = work.finally(() => {
    pending = false;
  });
  const going = () => pending && current();
  void every(PROGRESS_LOOK_MS, going, async () => {
    const seen = await call('getEnrichmentProgress');
    const shown = ui.progress;
    const sameRun = !shown.runId || seen.runId === shown.runId;
    if (!going() || !sameRun || seen.readOnly || seen.state !== 'running' || shown.state !== 'running')
      return;
    if (seen.processed > shown.processed) setProgress({ ...seen, waiting: false });
    looked(seen);
  });
  return settled;
}

/** Someone else's run: its progress now and then while under way, never driven (only its starter's are). */
async function watch(): Promise<void> {
  if (watching || ui.driving) return;
  watching = true;
  const watched = () => !!ui.progress.readOnly && isUnderWay(ui.progress);
  await every(WATCH_INTERVAL_MS, watched, async () => {
    if (!ui.driving) setProgress(await call('getEnrichmentProgress'));
  });
  watching = false;
  follow();
}

/** Bounded: a refused Resume of a run this person's closed sidebar paused is not a loop. */
let resumesAfterClose = 0;
let closing = false;

/** The open sidebar drives its user's running run and resumes one its closing paused; someone else's it watches. */
export function follow(): void {
  if (closing) return;
  if (ui.progress.readOnly) {
    if (isUnderWay(ui.progress)) void watch();
  } else if (ui.progress.state === 'running') void drive();
  else if (pausedByClosedSidebar(ui.progress) && !ui.runActionBusy && resumesAfterClose < 3) {
    resumesAfterClose++;
    void runAction('resumeEnrichment');
  }
}

/**
 * Closing the sidebar pauses the run it drives. Best effort: Apps Script gives no close event and a call made as the
 * page goes away may never arrive; the run then reads as paused once its slices end (src/bulk/job.ts progressOf).
 */
export function pauseOnClose(): void {
  window.addEventListener('pagehide', () => {
    closing = true;
    if (!ui.driving || ui.progress.readOnly || ui.progress.state !== 'running') return;
    generation++;
    call('sidebarClosed').catch(() => undefined);
  });
  // Shown again from the browser's page cache.
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    closing = false;
    follow();
  });
}

/** A slice under way at Pause or Cancel wrote rows after the server answered: once both are back, look again. */
let refreshPending = false;

function refreshAfterActions(): void {
  if (ui.runActionBusy) refreshPending = true;
  else if (!ui.driving) void refreshProgress();
}

/** Pause and Cancel stop the drive loop first, so the server's answer to them is the last word shown. */
export async function runAction(fn: Halt | 'resumeEnrichment'): Promise<void> {
  if (fn !== 'resumeEnrichment') {
    generation++;
    ui.driving = false;
  }
  ui.runActionBusy = true;
  renderProgress();
  clearError();
  // Pressed while Start's call is on its way: the run may not exist yet; Start's answer sends it again then.
  const starting = ui.starting && fn !== 'resumeEnrichment';
  const next = await orShowError(call(fn));
  if (next) {
    generation++;
    ui.driving = false;
    if (starting && next.state === 'idle') ui.pendingAction = fn;
    else setProgress(next);
  }
  ui.runActionBusy = false;
  renderProgress();
  if (ui.starting) return;
  if (ui.progress.inFlight !== undefined) void awaitFinalCount();
  follow();
  if (!ui.driving && refreshPending) {
    refreshPending = false;
    void refreshProgress();
  }
}

let awaiting = false;

/** Paused or cancelled with lookups on their way: asks now and then until they are back, for the final count. */
export async function awaitFinalCount(): Promise<void> {
  if (awaiting) return;
  awaiting = true;
  const until = Date.now() + 200 * PROGRESS_LOOK_MS;
  const more = () => ui.progress.inFlight !== undefined && !ui.driving && Date.now() < until;
  await every(PROGRESS_LOOK_MS, more, async () => {
    if (ui.runActionBusy) return;
    const next = await call('getEnrichmentProgress');
    if (!ui.driving && !ui.runActionBusy) setProgress(next);
  });
  awaiting = false;
}
