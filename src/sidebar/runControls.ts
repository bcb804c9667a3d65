/** The Progress tab's buttons: Pause, Resume, Cancel (asked first), the key hint and Select failed rows. */
import { call } from './client';
import { $, clearError, confirmBox, input, onClick, setMessage, withButtons } from './dom';
import { drive, pauseOnClose, runAction } from './drive';
import { ui } from './state';
import { showView } from './tabs';

export function setupProgress(): void {
  pauseOnClose();
  onClick('pause', () => void runAction('pauseEnrichment'));
  // Cancel asks first; the run goes on meanwhile.
  onClick('cancel', confirmBox('cancel-confirm', 'cancel', 'cancel-no'));
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
