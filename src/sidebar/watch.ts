/**
 * The Watch tab: this spreadsheet's watch of a column (src/watch/) as every editor sees it, with Stop for anyone and
 * Start (the selected column, a daily limit) for a person with a saved key when no watch runs.
 */
import { WATCH_INTERVAL_MS } from '../core/limits';
import { call, failureMessage } from './client';
import { $, button, every, input, onClick, setMessage, setText, showError, showText } from './dom';
import { renderPlacementChoices } from './placementChoices';
import { ui } from './state';
import type { Placement, PlacementKind, WatchView } from './types';

let chosen: PlacementKind | undefined;
let busy = false;
let following = false;
/** The watch's status when Start answered: the start's message holds only until the watch's state moves on. */
let statusAtStart: string | null = null;

export function renderWatch(view: WatchView): void {
  if (statusAtStart !== null && view.status !== statusAtStart) {
    statusAtStart = null;
    setMessage('watch-start-message', '');
  }
  const tone = view.state === 'watching' ? (view.limitReached ? 'bad' : 'ok') : '';
  setMessage('watch-status', view.status, tone);
  showText('watch-message', view.message);
  $('watch-stop').hidden = view.state !== 'watching' && !view.triggersMissing;
  $('watch-form').hidden = !view.canStart || (view.state === 'watching' && !view.triggersMissing);
  if (!view.canStart && view.state !== 'watching')
    setText(
      'watch-start-message',
      'Save your API key in the Settings tab to start a watch: it uses your credits.',
    );
}

function renderPlacements(placements: Placement[] | undefined): void {
  const choices = placements && placements.length >= 2 ? placements : undefined;
  renderPlacementChoices('watch', 'watch-placement', choices, chosen, (kind) => {
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
  if (following) return;
  // While the tab is open its state is read again now and then (one short execution each).
  following = true;
  void every(
    WATCH_INTERVAL_MS,
    () => ui.currentView === 'watch',
    async () => {
      if (busy) return;
      const view = await call('getWatchState');
      if (ui.currentView === 'watch' && !busy) renderWatch(view);
    },
  ).then(() => {
    following = false;
  });
}

/** One call of Start or Stop at a time, its button disabled meanwhile. */
async function act(
  id: string,
  work: () => Promise<void>,
  failed: string,
  onFailure = () => {},
): Promise<void> {
  if (busy) return;
  busy = true;
  button(id).disabled = true;
  try {
    await work();
  } catch (error) {
    onFailure();
    showError(`${failed}: ${failureMessage(error)}`);
  } finally {
    busy = false;
    button(id).disabled = false;
  }
}

export function setupWatch(): void {
  $('watch-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void act(
      'watch-start',
      async () => {
        setMessage('watch-start-message', 'Starting…');
        const answer = await call('startWatch', { limit: input('watch-limit').value, placement: chosen });
        statusAtStart = null;
        renderWatch(answer.view);
        renderPlacements(answer.started ? undefined : answer.placements);
        setMessage('watch-start-message', answer.message, answer.started ? 'ok' : 'bad');
        if (answer.started) statusAtStart = answer.view.status;
      },
      'The watch did not start',
      () => setMessage('watch-start-message', ''),
    );
  });
  onClick('watch-stop', () => {
    void act(
      'watch-stop',
      async () => {
        renderWatch(await call('stopWatch'));
        setMessage('watch-start-message', '');
      },
      'The watch did not stop',
    );
  });
  onClick('watch-refresh', () => void loadWatch());
}
