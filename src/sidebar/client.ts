/** google.script.run as promises; a failure rejects with an Error whose message is shown to the user. */
import type { ServerApi } from './types';

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
  const message = (failure as { message?: unknown } | null)?.message;
  if (failure && typeof failure === 'object' && typeof message === 'string') return message;
  return String(failure ?? '').trim() || 'The add-on failed without saying why.';
}

export function call<K extends ServerFunction>(
  fn: K,
  ...args: Parameters<ServerApi[K]>
): Promise<ReturnType<ServerApi[K]>> {
  return new Promise((resolve, reject) => {
    try {
      const runner = google.script.run
        .withSuccessHandler((value: ReturnType<ServerApi[K]>) => resolve(value))
        .withFailureHandler((failure: unknown) => reject(new Error(failureMessage(failure))));
      (runner as unknown as Record<ServerFunction, (...args: unknown[]) => void>)[fn](...args);
    } catch (error) {
      // No google.script.run (the page opened outside Apps Script) or a call it refused.
      reject(new Error(failureMessage(error)));
    }
  });
}
