/** The Progress tab's buttons: Pause, Resume, Cancel (asked first), the key hint and Select failed rows. */
import { call } from './client';
import { $, button, clearError, input, setMessage } from './dom';
import { drive, pauseOnClose, runAction } from './drive';
import { withButtons } from './settings';
import { ui } from './state';
import { showView } from './tabs';

export function setupProgress(): void {
  pauseOnClose();
  button('pause').addEventListener('click', () => void runAction('pauseEnrichment'));
  // Cancel asks first; the run goes on meanwhile.
  button('cancel').addEventListener('click', () => {
    $('cancel-confirm').hidden = false;
    button('cancel-no').focus();
  });
  button('cancel-no').addEventListener('click', () => {
    $('cancel-confirm').hidden = true;
    button('cancel').focus();
  });
  button('cancel-yes').addEventListener('click', () => {
    $('cancel-confirm').hidden = true;
    void runAction('cancelEnrichment');
  });
  button('resume').addEventListener('click', () => {
    // A running run without a loop (it gave up after failures): drive it again.
    if (ui.progress.state === 'running') {
      clearError();
      void drive();
    } else void runAction('resumeEnrichment');
  });
  button('run-key-open').addEventListener('click', () => {
    showView('settings', true);
    input('api-key').focus();
  });
  button('select-failed').addEventListener('click', () => {
    setMessage('summary-message', '');
    void withButtons(['select-failed'], async () => {
      setMessage('summary-message', await call('selectFirstFailedRow'));
    });
  });
}
