/** ScriptApp (triggers, the OAuth token) and Session (the active and effective user). */
import { fail } from '../errors';
import { requireScope } from '../host/manifest';
import type { TriggerD } from '../protocol';
import type { TriggerRecord } from '../types';
import { type Exec, requireAuth, requireFullAuth, type ServiceHost } from './context';

/** Installable triggers a user may hold in one script ("Triggers 20 / user / script", the quotas page). */
export const MAX_TRIGGERS_PER_USER = 20;
export const TOO_MANY_TRIGGERS =
  'This script has too many triggers. Triggers must be deleted from the script before more can be added.';
export const TEST_DEPLOYMENT_TRIGGERS =
  'Installable triggers are not supported in a test deployment of an Editor add-on.';

/** The emulator's refusal of a second trigger of one type for one user and document (Apps Script's text is not documented). */
export function oneOfEachType(eventType: string): string {
  return eventType === 'CLOCK'
    ? 'This add-on has already created a time-based trigger for this document and user.'
    : `This add-on has already created a trigger of this type (${eventType}) for this document and user.`;
}

/** ScriptApp's methods that need the script.scriptapp scope (the trigger methods). */
const TRIGGER_METHODS = ['newTrigger.create', 'getProjectTriggers', 'getUserTriggers', 'deleteTrigger'];

export function scriptApp(host: ServiceHost, exec: Exec, method: string, args: unknown[]): unknown {
  requireFullAuth(exec, `ScriptApp.${method}`, 'https://www.googleapis.com/auth/script.scriptapp');
  if (exec.kind === 'custom') fail(`You do not have permission to call ScriptApp.${method}`);
  if (TRIGGER_METHODS.includes(method)) {
    const name = method === 'newTrigger.create' ? 'ScriptApp.newTrigger' : `ScriptApp.${method}`;
    requireScope(host.manifest, name, ['script.scriptapp']);
  }
  const mine = (t: TriggerRecord) => t.user === exec.user && t.spreadsheetId === exec.spreadsheetId;
  const describe = (t: TriggerRecord): TriggerD => ({
    id: t.id,
    handler: t.handler,
    eventType: t.eventType,
    source: t.source,
    sourceId: t.spreadsheetId,
  });
  switch (method) {
    case 'newTrigger.create': {
      const spec = args[0] as Record<string, unknown>;
      // https://developers.google.com/apps-script/add-ons/test: "Installable triggers aren't supported when
      // testing." (What Apps Script then does is not documented: the emulator refuses, so a test notices.)
      if (host.deployment === 'test') fail(TEST_DEPLOYMENT_TRIGGERS);
      // The limit counts the user's triggers of the whole script, every document included.
      if (host.triggers.filter((t) => t.user === exec.user).length >= MAX_TRIGGERS_PER_USER)
        fail(TOO_MANY_TRIGGERS);
      // Add-ons: "Time-driven triggers cannot run more frequently than once per hour"
      // (https://developers.google.com/workspace/add-ons/concepts/editor-triggers#restrictions).
      if (spec.eventType === 'CLOCK' && spec.everyMinutes !== undefined)
        fail('Add-ons may not create time-based triggers that run more often than once an hour.');
      // "Each add-on can only have one trigger of each type, per user, per document" (same page; it gives no text).
      if (host.triggers.some((t) => mine(t) && t.eventType === spec.eventType))
        fail(oneOfEachType(String(spec.eventType)));
      // An add-on's trigger belongs to the user and the document it was created in, and runs in that document.
      const trigger: TriggerRecord = {
        id: `trigger-${host.nextSerial('trigger')}`,
        handler: String(spec.handler),
        eventType: String(spec.eventType),
        source: spec.eventType === 'CLOCK' ? 'CLOCK' : 'SPREADSHEETS',
        user: exec.user,
        spreadsheetId: exec.spreadsheetId,
        spec,
      };
      host.triggers.push(trigger);
      return describe(trigger);
    }
    case 'getProjectTriggers':
      // All of this user's triggers of the project, whatever the document (an add-on's are per document).
      return host.triggers.filter((t) => t.user === exec.user).map(describe);
    case 'getUserTriggers':
      return host.triggers
        .filter((t) => t.user === exec.user && t.spreadsheetId === String(args[0]))
        .map(describe);
    case 'deleteTrigger': {
      const index = host.triggers.findIndex((t) => t.id === args[0] && t.user === exec.user);
      if (index >= 0) host.triggers.splice(index, 1);
      return null;
    }
    case 'getOAuthToken':
      return `ya29.emulated-${exec.id}`;
    case 'getScriptId':
      return 'emulated-script-id';
    default:
      return fail(`Unknown method ScriptApp.${method}`);
  }
}

export function session(host: ServiceHost, exec: Exec, method: string): unknown {
  requireAuth(exec, `Session.${method}`);
  // Both need userinfo.email (developers.google.com/apps-script/reference/base/session, "Authorization").
  if (method === 'getActiveUser' || method === 'getEffectiveUser')
    requireScope(host.manifest, `Session.${method}`, ['userinfo.email']);
  switch (method) {
    case 'getActiveUser':
      // Custom functions and simple triggers often get an empty active user.
      return exec.kind === 'custom' ? '' : exec.user;
    case 'getEffectiveUser':
      return exec.kind === 'custom' && exec.spreadsheetId
        ? host.spreadsheet(exec.spreadsheetId).owner
        : exec.user;
    case 'getTemporaryActiveUserKey':
      return `temp-${Buffer.from(exec.user).toString('base64url')}`;
    default:
      return fail(`Unknown method Session.${method}`);
  }
}
