/**
 * The server functions the sidebar calls, as promises of google.script.run, and the shapes they return (types only
 * from the server: none of its code in the page). A failure rejects with an Error whose message is shown to the user.
 */
export type * from '../api';

import type * as Main from '../main';

/** src/main.ts's exports themselves: a renamed function or a changed argument or return type fails the type check. */
export type ServerApi = typeof Main;

/** The sidebar's tabs. The page may open on `plan` or `retry`: the Progress tab, showing a run's plan first. */
export type View = 'settings' | 'progress' | 'credits' | 'watch';

interface ScriptRun {
  withSuccessHandler(handler: (value: never) => void): ScriptRun;
  withFailureHandler(handler: (failure: unknown) => void): ScriptRun;
}

declare const google: { script: { run: ScriptRun } };

/** The message to show for whatever the failure handler received (Apps Script passes an Error). */
export function failureMessage(failure: unknown): string {
  if (failure instanceof Error) return failure.message || failure.name || 'The add-on failed.';
  const message = (failure as { message?: unknown } | null)?.message;
  if (failure && typeof failure === 'object' && typeof message === 'string') return message;
  return String(failure ?? '').trim() || 'The add-on failed without saying why.';
}

export function call<K extends keyof ServerApi>(
  fn: K,
  ...args: Parameters<ServerApi[K]>
): Promise<ReturnType<ServerApi[K]>> {
  return new Promise((resolve, reject) => {
    const failed = (failure: unknown) => reject(new Error(failureMessage(failure)));
    try {
      const runner = google.script.run.withSuccessHandler(resolve).withFailureHandler(failed);
      (runner as unknown as Record<K, (...args: unknown[]) => void>)[fn](...args);
    } catch (error) {
      // No google.script.run (the page opened outside Apps Script) or a call it refused.
      failed(error);
    }
  });
}
