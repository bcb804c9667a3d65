/** Ui (menus, sidebars, dialogs, alerts) and HtmlService's files. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../errors';
import type { DialogAnswer, DialogQuestion, RecordedOutput } from '../types';
import type { Exec, ServiceHost } from './context';

const DIALOGS = new Set(['showSidebar', 'showModalDialog', 'showModelessDialog', 'alert', 'prompt']);

export function ui(host: ServiceHost, exec: Exec, method: string, args: unknown[]): unknown {
  const data = (args[0] ?? {}) as Record<string, unknown>;
  const output = (kind: RecordedOutput['kind']): RecordedOutput => ({
    serial: host.nextSerial('output'),
    kind,
    html: String(data.content ?? ''),
    title: String(data.title ?? ''),
    width: data.width as number | undefined,
    height: data.height as number | undefined,
    user: exec.user,
    spreadsheetId: exec.spreadsheetId,
  });
  // "Add-ons can't open sidebars or dialogs while executing in AuthMode.LIMITED"
  // (workspace/add-ons/concepts/editor-auth-lifecycle); the text as reported (RomainVialard/ErrorHandler#11).
  if (DIALOGS.has(method) && (exec.authMode === 'LIMITED' || exec.authMode === 'NONE'))
    fail(`You do not have permission to call ${method}`);
  switch (method) {
    case 'addMenu':
      host.ui.menus.push({
        title: data.title as string | undefined,
        addon: Boolean(data.addon),
        items: data.items as unknown[],
        spreadsheetId: exec.spreadsheetId,
        user: exec.user,
      });
      return null;
    case 'showSidebar':
      host.ui.sidebars.push(output('sidebar'));
      return null;
    case 'showModalDialog':
      host.ui.dialogs.push(output('modal'));
      return null;
    case 'showModelessDialog':
      host.ui.dialogs.push(output('modeless'));
      return null;
    case 'alert':
    case 'prompt': {
      // The dialog suspends the script: its locks are gone (reference/base/ui).
      suspend(host, exec);
      const question: DialogQuestion = {
        kind: method,
        title: data.title as string | undefined,
        prompt: String(data.prompt),
        // alert(prompt) and prompt(prompt) show an OK button only (apps-script/reference/base/ui).
        buttons: (data.buttons as string | undefined) ?? 'OK',
        user: exec.user,
        spreadsheetId: exec.spreadsheetId,
      };
      host.ui.alerts.push({
        title: question.title,
        prompt: question.prompt,
        buttons: data.buttons as string,
      });
      const reply = (answer: DialogAnswer | undefined) =>
        method === 'alert'
          ? (answer?.button ?? 'OK')
          : { button: answer?.button ?? 'OK', text: answer?.text ?? '' };
      // "This method suspends the server-side script while the dialog is open": the person's answer ends the wait.
      if (host.ui.person) return host.ui.person(question).then(reply);
      return reply(host.ui.answers.shift());
    }
    default:
      return fail(`Unknown method Ui.${method}`);
  }
}

/**
 * An alert or a prompt suspends the script while the dialog is open, and its LockService locks do not persist across
 * the suspension (apps-script/reference/base/ui, alert and prompt; apps-script/guides/dialogs): the execution's locks
 * are freed (a waiting execution takes them) as the dialog opens, and not taken back when it resumes.
 */
function suspend(host: ServiceHost, exec: Exec): void {
  host.locks.releaseAll(String(exec.id));
}

export function htmlService(host: ServiceHost, _exec: Exec, _method: string, args: unknown[]): string {
  return htmlFile(host, String(args[0]));
}

function htmlFile(host: ServiceHost, name: string): string {
  const file = join(host.distDir, name.endsWith('.html') ? name : `${name}.html`);
  if (!existsSync(file)) fail(`No HTML file named ${name} was found.`);
  return readFileSync(file, 'utf8');
}
