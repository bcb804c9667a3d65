/**
 * The Watch tab: this spreadsheet's watch of a column (src/watch/) as every editor sees it — who pays, the daily
 * limit, what it used today, when it last checked — with Stop for anyone, and Start (the selected column, a daily
 * limit) for a person with a saved key when no watch runs.
 */
import { WATCH_INTERVAL_MS } from '../core/limits';
import { call, failureMessage } from './client';
import { $, button, input, setMessage, setText, showError, sleep } from './dom';
import { renderPlacementChoices } from './placementChoices';
import { ui } from './state';
import type { Placement, PlacementKind, WatchStart, WatchView } from './types';

let chosen: PlacementKind | undefined;
let busy = false;
/** The watch's status when Start answered: the start's message holds only until the watch's state moves on. */
let statusAtStart: string | null = null;

export function renderWatch(view: WatchView): void {
  // "1 row has no result yet" was true when the watch started; once it has checked (its status moved), it is not.
  if (statusAtStart !== null && view.status !== statusAtStart) {
    statusAtStart = null;
    setMessage('watch-start-message', '');
  }
  setMessage(
    'watch-status',
    view.status,
    view.state === 'watching' ? (view.limitReached ? 'bad' : 'ok') : '',
  );
  setText('watch-message', view.message);
  $('watch-message').hidden = view.message === '';
  $('watch-stop').hidden = view.state !== 'watching' && !view.triggersMissing;
  $('watch-form').hidden = !view.canStart || (view.state === 'watching' && !view.triggersMissing);
  if (!view.canStart && view.state !== 'watching') {
    setText(
      'watch-start-message',
      'Save your API key in the Settings tab to start a watch: it uses your credits.',
    );
  }
}

function renderPlacements(placements: Placement[] | undefined): void {
  const box = $('watch-placements');
  const list = $('watch-placement-list');
  list.textContent = '';
  box.hidden = !placements || placements.length < 2;
  if (box.hidden || !placements) return;
  renderPlacementChoices(list, placements, 'watch-placement', chosen, (kind) => {
    chosen = kind;
  });
}

export async function loadWatch(): Promise<void> {
  try {
    setMessage('watch-start-message', '');
    renderWatch(await call('getWatchState'));
  } catch (error) {
    showError(`Could not read the watch: ${failureMessage(error)}`);
  }
  void followWatch();
}

let following = false;

/** While the Watch tab is open, its state is asked for again every WATCH_INTERVAL_MS (one short execution each). */
async function followWatch(): Promise<void> {
  if (following) return;
  following = true;
  try {
    for (let look = 0; look < 100_000 && ui.currentView === 'watch'; look++) {
      await sleep(WATCH_INTERVAL_MS);
      if (ui.currentView !== 'watch' || busy) continue;
      try {
        const view = await call('getWatchState');
        if (ui.currentView === 'watch' && !busy) renderWatch(view);
      } catch {
        // A failed look is tried again at the next interval; the state shown stays.
      }
    }
  } finally {
    following = false;
  }
}

async function startWatch(): Promise<void> {
  if (busy) return;
  busy = true;
  button('watch-start').disabled = true;
  setMessage('watch-start-message', 'Starting…');
  try {
    const answer: WatchStart = await call('startWatch', {
      limit: input('watch-limit').value,
      placement: chosen,
    });
    statusAtStart = null;
    renderWatch(answer.view);
    renderPlacements(answer.started ? undefined : answer.placements);
    setMessage('watch-start-message', answer.message, answer.started ? 'ok' : 'bad');
    if (answer.started) statusAtStart = answer.view.status;
  } catch (error) {
    setMessage('watch-start-message', '');
    showError(`The watch did not start: ${failureMessage(error)}`);
  } finally {
    busy = false;
    button('watch-start').disabled = false;
  }
}

async function stopWatch(): Promise<void> {
  if (busy) return;
  busy = true;
  button('watch-stop').disabled = true;
  try {
    const view = await call('stopWatch');
    renderWatch(view);
    setMessage('watch-start-message', '');
  } catch (error) {
    showError(`The watch did not stop: ${failureMessage(error)}`);
  } finally {
    busy = false;
    button('watch-stop').disabled = false;
  }
}

export function setupWatch(): void {
  $('watch-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void startWatch();
  });
  button('watch-stop').addEventListener('click', () => void stopWatch());
  button('watch-refresh').addEventListener('click', () => void loadWatch());
}
