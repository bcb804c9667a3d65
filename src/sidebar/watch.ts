/**
 * The Watch tab: this spreadsheet's watch of a column (src/watch/) as every editor sees it, with Stop for anyone and
 * Start (the selected column, a daily limit) for a person with a saved key when no watch runs.
 */
import { WATCH_INTERVAL_MS } from '../core/limits';
import { $, button, every, input, onClick, orShowError, setMessage, setText, showText } from './dom';
import { renderPlacementChoices } from './placementChoices';
import { ui } from './state';
import { call, type PlacementKind, type WatchView } from './types';

let chosen: PlacementKind | undefined;
/** Start or Stop on its way: its button is disabled meanwhile. */
const busy = () => button('watch-start').disabled || button('watch-stop').disabled;
let following = false;
/** The watch's status when Start answered: the start's message holds only until the watch's state moves on. */
let statusAtStart: string | null = null;

function renderWatch(view: WatchView): void {
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

export async function loadWatch(): Promise<void> {
  setMessage('watch-start-message', '');
  const view = await orShowError(call('getWatchState'), 'Could not read the watch');
  if (view) renderWatch(view);
  if (following) return;
  // While the tab is open its state is read again now and then (one short execution each).
  following = true;
  const open = () => ui.currentView === 'watch';
  await every(WATCH_INTERVAL_MS, open, async () => {
    if (busy()) return;
    const next = await call('getWatchState');
    if (open() && !busy()) renderWatch(next);
  });
  following = false;
}

/** One call of Start or Stop at a time. */
async function act(id: string, failed: string, work: () => Promise<void>): Promise<void> {
  if (busy()) return;
  button(id).disabled = true;
  await orShowError(work(), failed);
  button(id).disabled = false;
}

export function setupWatch(): void {
  $('watch-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void act('watch-start', 'The watch did not start', async () => {
      setMessage('watch-start-message', 'Starting…');
      const request = { limit: input('watch-limit').value, placement: chosen };
      const answer = await call('startWatch', request).finally(() => setMessage('watch-start-message', ''));
      statusAtStart = null;
      renderWatch(answer.view);
      const placements = answer.started ? undefined : answer.placements;
      const choices = placements && placements.length >= 2 ? placements : undefined;
      renderPlacementChoices('watch', 'watch-placement', choices, chosen, (kind) => {
        chosen = kind;
      });
      setMessage('watch-start-message', answer.message, answer.started ? 'ok' : 'bad');
      if (answer.started) statusAtStart = answer.view.status;
    });
  });
  onClick('watch-stop', () => {
    void act('watch-stop', 'The watch did not stop', async () => {
      renderWatch(await call('stopWatch'));
      setMessage('watch-start-message', '');
    });
  });
  onClick('watch-refresh', () => void loadWatch());
}
