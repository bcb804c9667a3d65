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

/**
 * What Environment.edit rejects with when a person cancels the warning of a sheet protected with a warning
 * (Protection.setWarningOnly): "editing prompts a warning asking the user to confirm the edit"
 * (apps-script/reference/spreadsheet/protection#setWarningOnly(Boolean)). Nothing was entered.
 */
export class ProtectionWarningError extends Error {
  constructor(readonly sheetName: string) {
    super(
      `Sheets warned before this edit of the protected sheet "${sheetName}", and the person cancelled it.`,
    );
    this.name = 'ProtectionWarningError';
  }
}
