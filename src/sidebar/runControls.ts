/** The Progress tab's buttons: Pause, Resume, Cancel (asked first), the key hint and Select failed rows. */
import { call } from './client';
import { $, button, clearError, input, onClick, setMessage } from './dom';
import { drive, pauseOnClose, runAction } from './drive';
import { withButtons } from './settings';
import { ui } from './state';
import { showView } from './tabs';

export function setupProgress(): void {
  pauseOnClose();
  onClick('pause', () => void runAction('pauseEnrichment'));
  // Cancel asks first; the run goes on meanwhile.
  onClick('cancel', () => {
    $('cancel-confirm').hidden = false;
    button('cancel-no').focus();
  });
  onClick('cancel-no', () => {
    $('cancel-confirm').hidden = true;
    button('cancel').focus();
  });
  onClick('cancel-yes', () => {
    $('cancel-confirm').hidden = true;
    void runAction('cancelEnrichment');
  });
  onClick('resume', () => {
    // A running run without a loop (it gave up after failures): drive it again.
    if (ui.progress.state === 'running') {
      clearError();
      void drive();
    } else void runAction('resumeEnrichment');
  });
  onClick('run-key-open', () => {
    showView('settings', true);
    input('api-key').focus();
  });
  onClick('select-failed', () => {
    setMessage('summary-message', '');
    void withButtons(['select-failed'], async () =>
      setMessage('summary-message', await call('selectFirstFailedRow')),
    );
  });
}
