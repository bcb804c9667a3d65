/** ScriptApp (triggers, enums, the OAuth token) and Session (answered by services/script.ts). */
import type { TriggerD } from '../protocol';
import { call, count, exec, makeUser, RealDate } from './core';

export const AuthMode = {
  NONE: 'NONE',
  CUSTOM_FUNCTION: 'CUSTOM_FUNCTION',
  LIMITED: 'LIMITED',
  FULL: 'FULL',
};
const EventType = {
  CLOCK: 'CLOCK',
  ON_OPEN: 'ON_OPEN',
  ON_EDIT: 'ON_EDIT',
  ON_CHANGE: 'ON_CHANGE',
  ON_FORM_SUBMIT: 'ON_FORM_SUBMIT',
};
const TriggerSource = {
  SPREADSHEETS: 'SPREADSHEETS',
  CLOCK: 'CLOCK',
  DOCUMENTS: 'DOCUMENTS',
  FORMS: 'FORMS',
  CALENDAR: 'CALENDAR',
};
const WeekDay = {
  MONDAY: 'MONDAY',
  TUESDAY: 'TUESDAY',
  WEDNESDAY: 'WEDNESDAY',
  THURSDAY: 'THURSDAY',
  FRIDAY: 'FRIDAY',
  SATURDAY: 'SATURDAY',
  SUNDAY: 'SUNDAY',
};

class Trigger {
  constructor(readonly _d: TriggerD) {}
  getUniqueId(): string {
    count('Trigger.getUniqueId');
    return this._d.id;
  }
  getHandlerFunction(): string {
    count('Trigger.getHandlerFunction');
    return this._d.handler;
  }
  getEventType(): string {
    count('Trigger.getEventType');
    return this._d.eventType;
  }
  getTriggerSource(): string {
    count('Trigger.getTriggerSource');
    return this._d.source;
  }
  getTriggerSourceId(): string | null {
    count('Trigger.getTriggerSourceId');
    return this._d.sourceId || null;
  }
}

/** The builder's settings, sent whole to the host by create(). */
type TriggerSpec = Record<string, unknown> & { handler: string };

/** ClockTriggerBuilder: each setter records its argument under its own name. */
const CLOCK_SETTINGS = [
  'everyMinutes',
  'everyHours',
  'everyDays',
  'everyWeeks',
  'atHour',
  'nearMinute',
  'onWeekDay',
  'onMonthDay',
] as const;

function triggerBuilder(handler: unknown) {
  const spec: TriggerSpec = { handler: String(handler) };
  const create = () => new Trigger(call('ScriptApp.newTrigger.create', [spec]));
  // biome-ignore lint/suspicious/noExplicitAny: a script's services answer untyped values, as Apps Script's do
  const clock: Record<string, (value: any) => unknown> = {
    after(ms: number) {
      spec.afterMs = ms;
      return clock;
    },
    at(date: Date) {
      spec.at = new RealDate(date.getTime());
      return clock;
    },
    inTimezone(tz: string) {
      spec.timeZone = tz;
      return clock;
    },
    create,
  };
  for (const name of CLOCK_SETTINGS) {
    clock[name] = (value: unknown) => {
      spec[name] = value;
      return clock;
    };
  }
  const sheetTrigger: Record<string, () => unknown> = { create };
  for (const [name, eventType] of [
    ['onOpen', EventType.ON_OPEN],
    ['onEdit', EventType.ON_EDIT],
    ['onChange', EventType.ON_CHANGE],
    ['onFormSubmit', EventType.ON_FORM_SUBMIT],
  ]) {
    sheetTrigger[name] = () => {
      spec.eventType = eventType;
      return sheetTrigger;
    };
  }
  return {
    timeBased() {
      spec.eventType = EventType.CLOCK;
      return clock;
    },
    forSpreadsheet(target: string | { getId(): string }) {
      spec.sourceId = typeof target === 'string' ? target : target.getId();
      return sheetTrigger;
    },
  };
}

export const ScriptApp = {
  AuthMode,
  EventType,
  TriggerSource,
  WeekDay,
  getProjectTriggers(): Trigger[] {
    return call<TriggerD[]>('ScriptApp.getProjectTriggers').map((d) => new Trigger(d));
  },
  getUserTriggers(target: string | { getId(): string }): Trigger[] {
    const id = typeof target === 'string' ? target : target.getId();
    return call<TriggerD[]>('ScriptApp.getUserTriggers', [id]).map((d) => new Trigger(d));
  },
  newTrigger(functionName: unknown) {
    count('ScriptApp.newTrigger');
    return triggerBuilder(functionName);
  },
  deleteTrigger(trigger: Trigger): void {
    call('ScriptApp.deleteTrigger', [trigger._d.id]);
  },
  getOAuthToken(): string {
    return call('ScriptApp.getOAuthToken');
  },
  getScriptId(): string {
    return call('ScriptApp.getScriptId');
  },
  getAuthorizationInfo() {
    count('ScriptApp.getAuthorizationInfo');
    return { getAuthorizationStatus: () => 'NOT_REQUIRED', getAuthorizationUrl: () => null };
  },
};

export const Session = {
  getActiveUser() {
    return makeUser(call('Session.getActiveUser'));
  },
  getEffectiveUser() {
    return makeUser(call('Session.getEffectiveUser'));
  },
  getTemporaryActiveUserKey(): string {
    return call('Session.getTemporaryActiveUserKey');
  },
  getScriptTimeZone(): string {
    count('Session.getScriptTimeZone');
    return exec.timeZone;
  },
  getActiveUserLocale(): string {
    count('Session.getActiveUserLocale');
    return 'en';
  },
};
