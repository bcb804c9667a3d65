import { checkKeyForRun } from '../../src/bulk/runKeyCheck';
import { serviceError } from '../../src/lookup/result';

const KEY = 'sk_live_abcdefgh1234';
const THEN = 'click Start again';

function clock(step: number) {
  let at = 1_000;
  return () => {
    const now = at;
    at += step;
    return now;
  };
}

describe('checkKeyForRun', () => {
  it('refuses without a key, asking the service nothing', () => {
    const ask = jest.fn();
    const check = checkKeyForRun(THEN, clock(0), null, ask);
    expect(check.refusal).toMatch(/No API key is saved for you/);
    expect(check.refusal).toContain(THEN);
    expect(ask).not.toHaveBeenCalled();
  });

  it('lets the run start with an accepted key, saying how long the check took', () => {
    const ask = jest.fn(() => ({ valid: true as const }));
    expect(checkKeyForRun(THEN, clock(250), KEY, ask)).toEqual({ acceptedInMs: 250 });
    expect(ask).toHaveBeenCalledTimes(1);
  });

  it('refuses a rejected key without ever showing the key itself', () => {
    const check = checkKeyForRun(THEN, clock(0), KEY, () => ({
      valid: false,
      message: `key ${KEY} is revoked`,
    }));
    expect(check.refusal).toMatch(/The service rejected your API key/);
    expect(check.refusal).toContain('revoked');
    expect(check.refusal).not.toContain(KEY);
    expect(check.refusal).toContain('1234');
  });

  it('lets the run start on any other answer (the run handles it as it does mid-run)', () => {
    expect(checkKeyForRun(THEN, clock(0), KEY, () => serviceError('server_error', 'down'))).toEqual({});
    expect(checkKeyForRun(THEN, clock(0), KEY, () => ({ config: 'no endpoint' }))).toEqual({});
  });
});
