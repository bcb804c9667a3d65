import { checkKeyForRun } from '../../src/bulk/start';
import { serviceError } from '../../src/lookup/result';

const KEY = 'sk_live_abcdefgh1234';
const THEN = 'click Start again';

describe('checkKeyForRun', () => {
  it('refuses without a key, asking the service nothing', () => {
    const ask = jest.fn();
    const check = checkKeyForRun(THEN, null, ask);
    expect(check.refusal).toMatch(/No API key is saved for you/);
    expect(check.refusal).toContain(THEN);
    expect(ask).not.toHaveBeenCalled();
  });

  it('lets the run start with an accepted key', () => {
    const ask = jest.fn(() => ({ valid: true as const }));
    expect(checkKeyForRun(THEN, KEY, ask)).toEqual({});
    expect(ask).toHaveBeenCalledTimes(1);
  });

  it('refuses a rejected key without ever showing the key itself', () => {
    const check = checkKeyForRun(THEN, KEY, () => ({
      valid: false,
      message: `key ${KEY} is revoked`,
    }));
    expect(check.refusal).toMatch(/The service rejected your API key/);
    expect(check.refusal).toContain('revoked');
    expect(check.refusal).not.toContain(KEY);
    expect(check.refusal).toContain('1234');
  });

  it('lets the run start on any other answer (the run handles it as it does mid-run)', () => {
    expect(checkKeyForRun(THEN, KEY, () => serviceError('server_error', 'down'))).toEqual({});
    expect(checkKeyForRun(THEN, KEY, () => ({ config: 'no endpoint' }))).toEqual({});
  });
});
