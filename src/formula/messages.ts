/** What =FINDEMAIL cells say without a result yet, and the errors that stop formulas. */
import { HALT_SECONDS } from '../core/limits';
import { BULK_RUN_PATH, FORMULA_PAYER, REFRESH_PATH, SETTINGS_PATH } from '../core/product';
import { type ServiceError, serviceError, withAdvice } from '../lookup/result';

export const PENDING_MESSAGES = {
  notInTime: `Not looked up in time (no credit spent); use ${REFRESH_PATH} to try again.`,
  otherCell: `Another cell is still looking this profile up; use ${REFRESH_PATH} in a moment to see the result.`,
  bulkRun: `The bulk run (Find e-mails) is looking this profile up; use ${REFRESH_PATH} once it is done to see the result.`,
  unsaved: `Not looked up (no credit spent): many results wait to be saved. Open ${SETTINGS_PATH} once, then use ${REFRESH_PATH}.`,
  noWrites: `Not looked up (no credit spent): Apps Script does not let formulas save results in this spreadsheet. Select the URLs and use ${BULK_RUN_PATH}; then ${REFRESH_PATH} shows its results here.`,
} as const;

function pending(message: string): ServiceError {
  return serviceError('timeout', message, { retryable: true });
}

export const NOT_IN_TIME = pending(PENDING_MESSAGES.notInTime);
export const OTHER_CELL = pending(PENDING_MESSAGES.otherCell);
export const BULK_RUN = pending(PENDING_MESSAGES.bulkRun);
export const UNSAVED = pending(PENDING_MESSAGES.unsaved);
export const NO_WRITES = pending(PENDING_MESSAGES.noWrites);

/** Every pending text names the refresh item. */
export function isPendingText(value: unknown): boolean {
  return typeof value === 'string' && value.includes(REFRESH_PATH);
}

export function ownerKeyMessage(what: string): string {
  return `${what} =FINDEMAIL uses the API key of ${FORMULA_PAYER}: Apps Script gives formulas that person's settings. They open ${SETTINGS_PATH} to save a key, then use ${REFRESH_PATH}.`;
}

export function accountError(error: ServiceError): Error {
  if (error.error === 'unauthorized') return new Error(withAdvice(error, ownerKeyMessage('').trim()));
  if (error.error === 'payment_required') {
    const advice = `Formulas spend the credits of ${FORMULA_PAYER}. After a top-up, press Check in ${SETTINGS_PATH} (Settings tab), then use ${REFRESH_PATH}. Without Check, formulas call the service again after ${HALT_SECONDS / 60} minutes at the earliest.`;
    return new Error(withAdvice(error, advice));
  }
  return new Error(error.message);
}

/** The lock stayed busy or LockService refused it (its rate quota). */
export const LOCK_BUSY = pending(
  `Not looked up yet: the spreadsheet was busy with many lookups at once. Wait a minute, then use ${REFRESH_PATH}.`,
);
