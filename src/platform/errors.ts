/** The errors Apps Script's ports throw, which the features tell apart. */

/** The document lock stayed busy or LockService refused it: nothing was done; a moment later it may work. */
export class DocumentBusyError extends Error {
  constructor(
    message = 'The spreadsheet is busy (another execution holds its lock). Try again in a moment.',
  ) {
    super(message);
    this.name = 'DocumentBusyError';
  }
}

/** Test deployments of an Editor add-on do not run installable triggers (apps-script/add-ons/test). */
export class TriggersRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TriggersRefusedError';
  }
}
