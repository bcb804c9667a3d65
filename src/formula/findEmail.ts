/** =FINDEMAIL: stored results read, the rest claimed under the lock (the day's limit in the same hold) and sent. */
import { parseFields } from '../core/cells';
import { stableHash } from '../core/hash';
import {
  FORMULA_LOCK_PAUSE_MS,
  FORMULA_RECORD_MS,
  FORMULA_WORK_BUDGET_MS,
  HALT_SECONDS,
  POLL_FIRST_MS,
  POLL_MAX_MS,
} from '../core/limits';
import type { Platform } from '../core/ports';
import { REFRESH_PATH } from '../core/product';
import { FORMULA_SPEND_PROPERTY, HALT_KEY } from '../core/propertyNames';
import { isPropertiesQuotaError, propertiesQuotaMessage } from '../core/quota';
import { storedRecord } from '../core/storedJson';
import { type ProfileInput, parseProfileInput } from '../core/url';
import { fieldValues, type RowOutcome, summaryValue } from '../lookup/cellValues';
import { serviceError } from '../lookup/result';
import { FORMULAS_CONTEXT } from '../store/credits';
import { type Claim, claim, sendClaimed } from '../store/send';
import { storeOf } from '../store/store';
import { capMessage, giveBack, parseSpend, readCapSetting, roomLeft, spendValue } from './dailyLimit';
import {
  accountError,
  BULK_RUN,
  LOCK_BUSY,
  NO_WRITES,
  NOT_IN_TIME,
  OTHER_CELL,
  ownerKeyMessage,
  UNSAVED,
} from './messages';

type Cell = unknown;

export function findEmail(platform: Platform, value: Cell | Cell[][], fieldsSpec?: unknown): unknown {
  // A referenced empty cell arrives as ""; no argument at all arrives as undefined.
  if (value === undefined)
    throw new Error(
      'Give =FINDEMAIL a profile URL or the cell holding one, e.g. =FINDEMAIL(A2), or a column: =FINDEMAIL(A2:A200).',
    );
  const fields = parseFields(fieldsSpec);
  if (!fields.ok) throw new Error(fields.message);
  const isRange = Array.isArray(value);
  const grid: Cell[][] = isRange
    ? (value as Cell[][]).map((row) => (Array.isArray(row) ? row : [row]))
    : [[value]];
  if (fields.fields && grid.some((row) => row.length > 1))
    throw new Error('With output fields, give a single column of URLs (e.g. A2:A100).');
  let outcomes: Map<string, RowOutcome>;
  let inputs: ProfileInput[][];
  try {
    const hosts = platform.config().networkHosts;
    inputs = grid.map((row) => row.map((cell) => parseProfileInput(cell, hosts)));
    outcomes = resolveAll(platform, inputs.flat());
  } catch (error) {
    if (isPropertiesQuotaError(error))
      throw new Error(`${propertiesQuotaMessage(error)} Then use ${REFRESH_PATH}.`);
    throw error;
  }
  const outcomeOf = (input: ProfileInput): RowOutcome | { kind: 'empty' } => {
    if (input.kind === 'empty') return input;
    if (input.kind === 'invalid') return { kind: 'invalid', reason: input.reason };
    return outcomes.get(input.key) ?? NOT_IN_TIME;
  };
  const chosen = fields.fields;
  if (chosen) return inputs.map((row) => fieldValues(outcomeOf(row[0]), chosen));
  const values = inputs.map((row) => row.map((input) => summaryValue(outcomeOf(input))));
  return isRange ? values : values[0][0];
}

/** Sends what no one holds; waits a little for what other cells hold; says why for the rest. */
function resolveAll(platform: Platform, inputs: ProfileInput[]): Map<string, RowOutcome> {
  const { clock } = platform;
  const started = clock.now();
  const outcomes = new Map<string, RowOutcome>();
  const wanted = new Map<string, string>();
  for (const input of inputs)
    if (input.kind === 'url' && !wanted.has(input.key)) wanted.set(input.key, input.sent);
  if (wanted.size === 0) return outcomes;
  const config = platform.config();
  if (!config.endpoint.ok) throw new Error(config.endpoint.message);
  const store = storeOf(platform);
  for (const [key, result] of store.getMany([...wanted.keys()])) outcomes.set(key, result);
  for (const key of outcomes.keys()) wanted.delete(key);
  if (wanted.size === 0) return outcomes;
  const apiKey = platform.settings.apiKey();
  if (!apiKey) throw new Error(ownerKeyMessage('No API key is saved for the formulas of this spreadsheet.'));
  throwIfHalted(platform, apiKey);
  const end = started + Math.min(FORMULA_WORK_BUDGET_MS, config.findEmailBudgetMs ?? FORMULA_WORK_BUDGET_MS);
  const setting = readCapSetting(platform);
  // `wanted`: the keys not settled yet.
  const settle = (key: string, outcome: RowOutcome) => {
    outcomes.set(key, outcome);
    wanted.delete(key);
  };
  const others = new Map<string, 'formulas' | 'run'>();
  let lockBusy = false;
  for (let refusals = 0, polls = 0; wanted.size > 0 && clock.now() < end && refusals + polls < 40; ) {
    let claimed: Claim | undefined;
    let writable = true;
    const held = platform.lock.tryWith(() => {
      throwIfHalted(platform, apiKey);
      const props = platform.documentProperties();
      const all = props.getProperties();
      const spend = parseSpend(all[FORMULA_SPEND_PROPERTY], clock.day(clock.now()));
      claimed = claim(
        store,
        all,
        {
          wanted: new Map(wanted),
          payer: FORMULAS_CONTEXT,
          until: started + FORMULA_RECORD_MS,
          bounded: true,
          limit: roomLeft(spend, setting),
        },
        () => clock.now(),
      );
      if (claimed.mine.length === 0) return;
      try {
        props.setProperties({
          ...claimed.values,
          [FORMULA_SPEND_PROPERTY]: spendValue(spend, claimed.mine.length),
        });
      } catch (error) {
        if (isPropertiesQuotaError(error)) throw error;
        // Whether a custom function may write document properties is not documented.
        writable = false;
      }
    }, end);
    if (!held || !claimed) {
      lockBusy = true;
      // LockService's rate quota refuses for a while: the pause doubles.
      const pause = Math.round(FORMULA_LOCK_PAUSE_MS * 2 ** Math.min(refusals++, 4) * (1 + Math.random()));
      if (clock.now() + 2 * pause >= end) break;
      clock.sleep(pause);
      continue;
    }
    lockBusy = false;
    for (const [key, result] of claimed.stored) settle(key, result);
    // Counted at a reserve each until answered: once these are stored, as written, more may fit.
    const again = claimed.unsaved.length > 0 && claimed.mine.length > 0;
    if (!again) for (const key of claimed.unsaved) settle(key, UNSAVED);
    const refusal = serviceError('config', capMessage(setting));
    for (const key of claimed.over) settle(key, refusal);
    for (const [key, holder] of claimed.elsewhere) others.set(key, holder);
    if (!writable) {
      for (const key of claimed.mine) settle(key, NO_WRITES);
      break;
    }
    if (claimed.mine.length > 0) {
      const report = sendClaimed(platform, claimed, {
        apiKey,
        endpoint: config.endpoint.endpoint,
        pace: { size: config.maxConcurrency },
        share: config.maxConcurrency,
        cap: config.maxConcurrency,
        deadline: end,
      });
      let charged = 0;
      for (const [key, outcome] of report.outcomes) {
        if (outcome.kind !== 'error') charged++;
        settle(key, outcome);
      }
      giveBack(platform, claimed.mine.length - charged);
      if (report.halt) {
        const error = accountError(report.halt);
        if (report.halt.error === 'unauthorized' || report.halt.error === 'payment_required') {
          const halted = JSON.stringify({ message: error.message, keyHash: stableHash(apiKey) });
          platform.documentCache()?.put(HALT_KEY, halted, HALT_SECONDS);
        }
        throw error;
      }
      if (report.unsent.length > 0) break;
      if (again) continue;
    }
    // A bulk run's batch may take a minute: only other cells are waited for.
    if (![...claimed.elsewhere.values()].includes('formulas')) break;
    const pause = Math.min(POLL_MAX_MS, POLL_FIRST_MS * 2 ** polls++);
    if (clock.now() + pause >= end) break;
    clock.sleep(pause);
  }
  const late = lockBusy ? LOCK_BUSY : NOT_IN_TIME;
  for (const key of wanted.keys()) {
    const holder = others.get(key);
    outcomes.set(key, holder === 'run' ? BULK_RUN : holder ? OTHER_CELL : late);
  }
  return outcomes;
}

/** A 401 or 402 another cell met for this key in the last HALT_SECONDS. */
function throwIfHalted(platform: Platform, apiKey: string): void {
  const halted = storedRecord<{ message: string; keyHash: string }>(platform.documentCache()?.get(HALT_KEY), {
    message: 'string',
    keyHash: 'string',
  });
  if (halted?.keyHash === stableHash(apiKey)) throw new Error(halted.message);
}
