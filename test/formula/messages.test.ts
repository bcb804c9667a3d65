/** Notes and messages in a person's words, and the check every test world runs on them. */

import { haltOf } from '../../src/bulk/jobMachine';
import { enrichmentRow } from '../../src/lookup/cellValues';
import { interpretFetchException, interpretLookupResponse } from '../../src/lookup/contract';
import type { ServiceError } from '../../src/lookup/result';
import { slipsIn } from '../support/slips';

const error = (outcome: ReturnType<typeof interpretLookupResponse>): ServiceError => {
  if (outcome.kind !== 'error') throw new Error(`not an error: ${outcome.kind}`);
  return outcome;
};

describe('the slips check', () => {
  it('catches what the issue saw', () => {
    expect(
      slipsIn(
        'The service could not be reached (Address unavailable: http://127.0.0.1:8787/api/v1/network_finder).',
      ),
    ).toHaveLength(1);
    expect(
      slipsIn(
        'Out of credits: Insufficient credits: 1 credit is needed to perform the email lookup.. Rows not yet processed stay empty.',
      ),
    ).toHaveLength(1);
    expect(slipsIn('Open the the sidebar, then recalculate.')).toHaveLength(2);
    expect(slipsIn('Resuming…')).toEqual([]);
  });
});

describe('messages', () => {
  it('a connection failure: no address, what to do on the row', () => {
    const reached = interpretFetchException(
      'Exception: Address unavailable: http://127.0.0.1:8787/api/v1/network_finder',
    );
    expect(reached.message).toBe('The service could not be reached (Address unavailable).');
    const note = String(enrichmentRow(reached, false)[3]);
    expect(note).toBe(
      'The service could not be reached (Address unavailable). To try again: Extensions › Profile Email Finder › Retry failed rows in the selected column.',
    );
    expect(slipsIn(note)).toEqual([]);
  });

  it("402: our words, what to do, then the service's words quoted once", () => {
    const body = JSON.stringify({
      error: 'Insufficient credits: 1 credit is needed to perform the email lookup.',
    });
    const { message } = haltOf(error(interpretLookupResponse(402, body)));
    expect(message).toBe(
      'Out of credits (HTTP 402). Rows not yet processed stay empty. Add credits to your account, then Resume. The service said: "Insufficient credits: 1 credit is needed to perform the email lookup".',
    );
    expect(slipsIn(message)).toEqual([]);
  });

  it('every status the contract names reads without a slip, the service quoted at most once', () => {
    for (const status of [400, 401, 402, 404, 418, 429, 500, 503]) {
      const outcome = error(interpretLookupResponse(status, JSON.stringify({ error: 'Said. ' })));
      const texts = [outcome.message, String(enrichmentRow(outcome, false)[3]), haltOf(outcome).message];
      for (const text of texts) {
        expect(slipsIn(text)).toEqual([]);
        expect(text.split('The service said:')).toHaveLength(2);
      }
    }
  });
});
