/** What =FINDEMAIL cells say when they have no result yet, and the errors that stop formulas (401, 402, no key). */
import { HALT_SECONDS } from '../core/limits';
import { type ServiceError, serviceError, withAdvice } from '../core/lookup';
import { SETTINGS_PATH } from '../core/product';

function pending(message: string): ServiceError {
  return serviceError('timeout', message, { retryable: true });
}

export const NOT_IN_TIME = pending('Not looked up in time; recalculate to try again.');
export const OTHER_CELL = pending(
  'Another cell is still looking this profile up; recalculate in a moment to see the result.',
);
export const BULK_RUN = pending(
  'The bulk run (Find e-mails) is looking this profile up; recalculate in a moment to see the result.',
);
export const UNSAVED = pending(
  `Not looked up (no credit spent): many results wait to be saved. Open ${SETTINGS_PATH} once, then recalculate.`,
);

export function ownerKeyMessage(what: string): string {
  return `${what} =FINDEMAIL uses the API key of the spreadsheet's owner (Apps Script gives formulas the owner's settings). The owner opens ${SETTINGS_PATH} to save a key.`;
}

export function accountError(error: ServiceError): Error {
  // The service's own words stay last (withAdvice).
  if (error.error === 'unauthorized') return new Error(withAdvice(error, ownerKeyMessage('').trim()));
  if (error.error === 'payment_required') {
    return new Error(
      withAdvice(
        error,
        `Add credits to the spreadsheet owner's account; formulas try again after ${HALT_SECONDS / 60} minutes.`,
      ),
    );
  }
  return new Error(error.message);
}
