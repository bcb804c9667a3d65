/**
 * The sidebar drives its user's running run (calling continueEnrichment() again and again while it is open) and
 * watches someone else's; Pause, Resume and Cancel stop the loop first.
 */
import {
  DRIVE_ATTEMPTS,
  EARLY_LOOK_MS,
  EARLY_LOOKS,
  MAX_IDLE_WAIT_MS,
  PROGRESS_LOOK_MS,
  WATCH_INTERVAL_MS,
} from '../core/limits';
import { call, failureMessage } from './client';
import { clearError, showError, sleep } from './dom';
import { isUnderWay, pausedByClosedSidebar } from './progress';
import { refreshProgress, renderProgress, setProgress } from './progressView';
import { ui } from './state';
import type { Progress } from './types';

/** Bumped by Pause and Cancel: a drive loop of an older generation stops and discards its answer. */
let generation = 0;

/** Someone else's run is being watched (its progress asked for now and then). */
let watching = false;

/** continueEnrichment calls this page has under way, of any drive (one before a Pause and Resume included). */
let slicesUnderWay = 0;

/**
 * Apps Script refused the call for the person's executions at once or per second ("too many scripts running
 * simultaneously", "invoked too many times"): fewer slices at once.
 */
export function tooManyExecutions(message: string): boolean {
  return /too many scripts running simultaneously|invoked too many times/i.test(message);
}

/**
 * While the run is running and the sidebar open, calls continueEnrichment() again and again (each call is one
 * Apps Script execution working on the run batch after batch for a time budget) and shows the run's one progress,
 * until the state is no longer running. As many calls at once as the server's figure of slices says (its answers
 * and progress looks carry it: the run's pace split into shares, never more than the windows left), each call a
 * lane: a lane past the figure ends, and one ends after a refusal for too many executions.
 */
export async function drive(): Promise<void> {
  if (ui.driving || ui.progress.state !== 'running' || ui.progress.readOnly) return;
  const mine = ++generation;
  ui.driving = true;
  // This sidebar drives it now: no longer paused for want of a driver.
  ui.progress = { ...ui.progress, waiting: false };
  renderProgress();
  const open = new Set<number>();
  const lanes: Promise<void>[] = [];
  // The run ended (paused, stopped, done) in a slice's answer: shown once every lane's batch is written.
  let ended: Progress | undefined;
  // Wakes the lanes waiting before their next call (no progress in their last): an ended run waits for no one idle.
  let wakeIdle = () => {};
  const runEnded = new Promise<void>((resolve) => {
    wakeIdle = resolve;
  });
  // This drive's continueEnrichment calls under way.
  let mineUnderWay = 0;
  const going = () => mine === generation && ui.progress.state === 'running' && !ended;
  const widen = (figure: number) => {
    for (let index = 0; index < Math.max(1, figure); index++) {
      if (open.has(index)) continue;
      // An earlier drive's slices still on their way (a Pause and Resume while their batches were at the service)
      // count against the figure: the page's calls stay under its 10 at once, and a click always has a free one.
      if (index > 0 && open.size + slicesUnderWay - mineUnderWay >= figure) return;
      open.add(index);
      lanes.push(lane(index));
    }
  };
  const slice = () => {
    slicesUnderWay++;
    mineUnderWay++;
    return call('continueEnrichment').finally(() => {
      slicesUnderWay--;
      mineUnderWay--;
    });
  };
  async function lane(index: number): Promise<void> {
    const first = index === 0;
    let failures = 0;
    let idleRounds = 0;
    // The processed rows of this lane's last answer (the progress shown may have moved on meanwhile).
    let answered = ui.progress.processed;
    try {
      while (going()) {
        let next: Progress;
        try {
          const work = slice();
          // The run's figure of slices grows with its pace: the progress looks while a slice works say so too.
          next = first
            ? await lookWhile(
                work,
                () => mine === generation,
                (seen) => widen(seen.slices ?? 1),
              )
            : await work;
        } catch (error) {
          if (mine !== generation) return refreshAfterActions();
          const message = failureMessage(error);
          // Apps Script refused an execution: one slice fewer at once.
          if (tooManyExecutions(message) && !first) return;
          failures++;
          if (failures >= DRIVE_ATTEMPTS) {
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
        const moved = next.processed !== answered;
        answered = next.processed;
        if (next.state !== 'running') {
          // The other lanes' slices write the batches they had at the service, then end too: the figures of the
          // latest answer are the run's (they only go up).
          if (!ended || figuresOf(next) >= figuresOf(ended)) ended = next;
          wakeIdle();
          return;
        }
        // Answers of slices at once arrive in any order: a running run's count only goes up.
        if (ui.progress.state === 'running' && next.processed >= ui.progress.processed) setProgress(next);
        const figure = next.slices ?? 1;
        if (index >= figure) return;
        widen(figure);
        // No progress: another execution (the starter's other sidebar) holds the run; or the other lanes' calls
        // are all the slices the run has work for (its last windows): ask again a little later, or not at its end.
        idleRounds = moved ? 0 : idleRounds + 1;
        const covered = mineUnderWay >= figure;
        if (idleRounds > 0 || covered)
          await Promise.race([sleep(Math.min(MAX_IDLE_WAIT_MS, 1000 * Math.max(1, idleRounds))), runEnded]);
      }
    } finally {
      open.delete(index);
    }
  }
  try {
    widen(ui.progress.slices ?? 1);
    // Every lane's last answer is in: the slices still under way finish their batch and write it first.
    for (let settled = 0; settled < lanes.length; settled++) await lanes[settled];
    if (ended && mine === generation) setProgress(ended);
  } finally {
    if (mine === generation) {
      ui.driving = false;
      renderProgress();
      // Paused by another sidebar of this person as it closed (its call arrived late): this one is open.
      if (pausedByClosedSidebar(ui.progress)) follow();
    }
  }
}

/** How far a run's answer went: rows processed and credits (each only goes up while the run goes on). */
function figuresOf(progress: Progress): number {
  return progress.processed + progress.creditsUsed + progress.creditsMaybeLost;
}

/**
 * While `work` (a call that works on this user's run for up to a slice's budget) is on its way, asks now and then
 * for the progress its slices save after each batch, and shows it when the run went further: rows count as
 * processed when their answers are in, not when the slice ends. `current`: false once Pause or Cancel was pressed;
 * `looked`: each look at this user's running run.
 */
export async function lookWhile<T>(
  work: Promise<T>,
  current: () => boolean = () => true,
  looked: (seen: Progress) => void = () => {},
): Promise<T> {
  let pending = true;
  const settled = work.finally(() => {
    pending = false;
  });
  void (async () => {
    for (let look = 0; look < 10_000; look++) {
      const wait = look < EARLY_LOOKS ? EARLY_LOOK_MS : PROGRESS_LOOK_MS;
      await Promise.race([sleep(wait), settled.catch(() => undefined)]);
      if (!pending || !current()) return;
      let seen: Progress;
      try {
        seen = await call('getEnrichmentProgress');
      } catch {
        continue; // A failed look is tried again; the call itself says how the run went.
      }
      if (!pending || !current()) return;
      const shown = ui.progress;
      const sameRun = !shown.runId || seen.runId === shown.runId;
      if (seen.state !== 'running' || shown.state !== 'running' || seen.readOnly || !sameRun) continue;
      if (seen.processed > shown.processed) setProgress({ ...seen, waiting: false });
      looked(seen);
    }
  })();
  return settled;
}

/**
 * Someone else's run: shows its progress now and then while it is under way, and never drives it (only its
 * starter's executions do). Stops when the run ends or becomes this user's to drive.
 */
async function watch(): Promise<void> {
  if (watching || ui.driving) return;
  watching = true;
  try {
    while (ui.progress.readOnly && isUnderWay(ui.progress)) {
      await sleep(WATCH_INTERVAL_MS);
      try {
        if (!ui.driving) setProgress(await call('getEnrichmentProgress'));
      } catch {
        // A failed look is tried again at the next interval; the last progress stays shown.
      }
    }
  } finally {
    watching = false;
  }
  follow();
}

/** Resumes asked for by this page for a run its closed sidebar paused (bounded: a refused Resume is not a loop). */
let resumesAfterClose = 0;

/** This page is going away (pagehide): it drives nothing more. */
let closing = false;

/**
 * The sidebar open (any view) drives its user's running run: closing it pauses the run, opening it again
 * resumes it. Someone else's run is only watched.
 */
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
 * Closing the sidebar pauses the run it drives: the slices under way write the batch they sent and take no other.
 * Best effort: Apps Script gives no close event, and a google.script.run call made while the page goes away may
 * never arrive: the run then reads as paused once its slices have ended (src/bulk/job.ts progressOf).
 */
export function pauseOnClose(): void {
  window.addEventListener('pagehide', () => {
    closing = true;
    if (!ui.driving || ui.progress.readOnly || ui.progress.state !== 'running') return;
    generation++;
    call('sidebarClosed').catch(() => undefined);
  });
  // Shown again from the browser's page cache: it drives again.
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    closing = false;
    follow();
  });
}

/**
 * A slice that was under way when Pause or Cancel was pressed wrote its last rows after the server answered them:
 * once both are back, the progress is asked for again, so the figures match the sheet.
 */
let refreshPending = false;

function refreshAfterActions(): void {
  if (ui.runActionBusy) refreshPending = true;
  else if (!ui.driving) void refreshProgress();
}

/** Pause and Cancel stop the drive loop first, so the server's answer to them is the last word shown. */
export async function runAction(
  fn: 'pauseEnrichment' | 'resumeEnrichment' | 'cancelEnrichment',
): Promise<void> {
  if (fn !== 'resumeEnrichment') {
    generation++;
    ui.driving = false;
  }
  ui.runActionBusy = true;
  renderProgress();
  clearError();
  // Pressed while Start's call is on its way: the run may not exist yet; Start's answer sends it again then.
  const starting = ui.starting && fn !== 'resumeEnrichment';
  try {
    const next = await call(fn);
    generation++;
    ui.driving = false;
    if (starting && next.state === 'idle') ui.pendingAction = fn as 'pauseEnrichment' | 'cancelEnrichment';
    else setProgress(next);
  } catch (error) {
    showError(failureMessage(error));
  } finally {
    ui.runActionBusy = false;
    renderProgress();
  }
  if (ui.starting) return;
  if (ui.progress.inFlight !== undefined) void awaitFinalCount();
  follow();
  if (!ui.driving && refreshPending) {
    refreshPending = false;
    void refreshProgress();
  }
}

/**
 * Paused or cancelled with lookups on their way: asks now and then until they are back (the slice that sent them
 * has stored their answers and let go of the run), then shows the final count.
 */
let awaiting = false;

export async function awaitFinalCount(): Promise<void> {
  if (awaiting) return;
  awaiting = true;
  try {
    for (let look = 0; look < 200 && ui.progress.inFlight !== undefined && !ui.driving; look++) {
      await sleep(PROGRESS_LOOK_MS);
      if (ui.driving || ui.runActionBusy) continue;
      try {
        const next = await call('getEnrichmentProgress');
        if (!ui.driving && !ui.runActionBusy) setProgress(next);
      } catch {
        // A failed look is tried again; the figures shown stay until then.
      }
    }
  } finally {
    awaiting = false;
  }
}
