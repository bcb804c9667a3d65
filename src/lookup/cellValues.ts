/** How outcomes become cell values (the enrichment columns, =FINDEMAIL's fields). Pure. */
import { type FieldName, STATUS } from '../core/cells';
import { BULK_RUN_ITEM, RETRY_PATH } from '../core/product';
import { quoteService, withoutStop } from '../core/text';
import { type LookupResult, type ProfileInfo, type ServiceError, withAdvice } from './result';

export type RowOutcome = LookupResult | { kind: 'invalid'; reason: string } | ServiceError;

export function statusOf(outcome: RowOutcome): string {
  switch (outcome.kind) {
    case 'found':
      return outcome.emailStatus || 'FOUND';
    case 'not_found':
      return STATUS.notFound;
    case 'unprocessable':
      return STATUS.unprocessable;
    case 'invalid':
      return STATUS.invalidUrl;
    case 'unusable':
      return STATUS.error;
    case 'error':
      return outcome.error === 'bad_request' ? STATUS.invalidUrl : STATUS.error;
  }
}

export function noteOf(outcome: RowOutcome): string {
  switch (outcome.kind) {
    case 'found':
      return '';
    case 'not_found':
      return 'No address found for this profile.';
    case 'unprocessable': {
      const whose = outcome.profile.name ? ` of ${outcome.profile.name}` : '';
      return `The service could not process this profile${whose} (HTTP 422).${quoteService(outcome.message)}`;
    }
    case 'invalid':
      return `Not looked up: ${withoutStop(outcome.reason)}.`;
    case 'unusable':
    case 'error':
      return outcome.message;
  }
}

/** A bulk run's Note: an error's also says what to do. */
function rowNoteOf(outcome: RowOutcome): string {
  if (outcome.kind === 'unusable') return `${outcome.message} To look it up again (1 credit): ${RETRY_PATH}.`;
  if (outcome.kind !== 'error') return noteOf(outcome);
  return outcome.error === 'bad_request'
    ? withAdvice(outcome, 'Check the profile URL in this row.')
    : withAdvice(outcome, `To try again: ${RETRY_PATH}.`);
}

/** Email, Email status, Catch-all (a real boolean, or empty), Note [, Account type, Name]. */
export function enrichmentRow(outcome: RowOutcome, extraFields: boolean): Array<string | boolean> {
  const found = outcome.kind === 'found';
  const row: Array<string | boolean> = [
    found ? outcome.email : '',
    statusOf(outcome),
    found ? outcome.catchAll : '',
    rowNoteOf(outcome),
  ];
  if (extraFields) row.push(found ? outcome.accountType : '', profileOf(outcome).name ?? '');
  return row;
}

function profileOf(outcome: RowOutcome): ProfileInfo {
  const kind = outcome.kind;
  return kind === 'found' || kind === 'not_found' || kind === 'unprocessable' ? outcome.profile : {};
}

export const UNUSABLE_FORMULA_ADVICE = `It is not looked up again unless you ask: select its URL, choose ${BULK_RUN_ITEM}, then Retry failed rows (1 credit).`;

/** The plain `=FINDEMAIL(url)`: the address, or a marker anyone can filter on. */
export function summaryValue(outcome: RowOutcome | { kind: 'empty' }): string {
  switch (outcome.kind) {
    case 'empty':
      return '';
    case 'found':
      return outcome.email;
    case 'not_found':
      return STATUS.notFound;
    case 'unusable':
      return `${STATUS.error}: ${outcome.message} ${UNUSABLE_FORMULA_ADVICE}`;
    default:
      return `${statusOf(outcome)}: ${noteOf(outcome).replace(/^Not looked up: /, '')}`;
  }
}

/** Without a `status` field the `email` field carries the marker. */
export function fieldValues(
  outcome: RowOutcome | { kind: 'empty' },
  fields: FieldName[],
): Array<string | boolean> {
  if (outcome.kind === 'empty') return fields.map(() => '');
  const found = outcome.kind === 'found' ? outcome : undefined;
  const profile = profileOf(outcome);
  const values: Record<FieldName, string | boolean> = {
    email: found ? found.email : fields.includes('status') ? '' : summaryValue(outcome),
    status: statusOf(outcome),
    catch_all: found ? found.catchAll : '',
    account_type: found ? found.accountType : '',
    name: profile.name ?? '',
    updated_at: profile.updatedAt ?? '',
    note: outcome.kind === 'unusable' ? `${outcome.message} ${UNUSABLE_FORMULA_ADVICE}` : noteOf(outcome),
  };
  return fields.map((field) => values[field]);
}
