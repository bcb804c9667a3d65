import type { ExecutionResult } from './types';

/** The error a service call throws. Apps Script names its service errors `Exception`. */
export class AppsScriptException extends Error {
  override name = 'Exception';
}

export function fail(message: string): never {
  throw new AppsScriptException(message);
}

/** What Environment.run rejects with: the execution's error, with its whole result. */
export class ExecutionError extends Error {
  constructor(
    message: string,
    readonly result: ExecutionResult,
  ) {
    super(message);
    this.name = result.error?.name ?? 'Exception';
  }
}
