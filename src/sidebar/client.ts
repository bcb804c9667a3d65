/** google.script.run as promises. A failure always rejects with an Error whose message is shown to the user. */
import type { ServerApi } from './types';

/** A handler of what a server function returns: each caller names its type (`never` accepts any of them). */
type Handler = (value: never, userObject?: unknown) => void;

interface ScriptRun {
  withSuccessHandler(handler: Handler): ScriptRun;
  withFailureHandler(handler: Handler): ScriptRun;
  withUserObject(userObject: unknown): ScriptRun;
}

declare const google: { script: { run: ScriptRun } };

type ServerFunction = keyof ServerApi;

/** The message to show for whatever the failure handler received (Apps Script passes an Error). */
export function failureMessage(failure: unknown): string {
  if (failure instanceof Error) return failure.message || failure.name || 'The add-on failed.';
  if (
    failure &&
    typeof failure === 'object' &&
    typeof (failure as { message?: unknown }).message === 'string'
  ) {
    return (failure as { message: string }).message;
  }
  const text = String(failure ?? '').trim();
  return text || 'The add-on failed without saying why.';
}

/** Calls a server function of src/main.ts; resolves with its return value, rejects with an Error. */
export function call<K extends ServerFunction>(
  fn: K,
  ...args: Parameters<ServerApi[K]>
): Promise<ReturnType<ServerApi[K]>> {
  return new Promise((resolve, reject) => {
    let runner: ScriptRun;
    try {
      runner = google.script.run
        .withSuccessHandler((value: ReturnType<ServerApi[K]>) => resolve(value))
        .withFailureHandler((failure: unknown) => reject(new Error(failureMessage(failure))));
      (runner as unknown as Record<ServerFunction, (...args: unknown[]) => void>)[fn](...args);
    } catch (error) {
      // No google.script.run (the page opened outside Apps Script) or a call it refused.
      reject(new Error(failureMessage(error)));
    }
  });
}
