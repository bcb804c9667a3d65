/** Apps Script source shared by the emulator's fixture scripts (each test writes its own Code.js around it). */

/** `lockCalls(times)`: takes and releases the document lock `times` times; each call's outcome. */
export const LOCK_CALLS_SOURCE = `
/** Takes and releases the document lock \`times\` times; each call's outcome. */
function lockCalls(times) {
  var lock = LockService.getDocumentLock();
  var seen = [];
  for (var i = 0; i < times; i++) {
    try {
      seen.push(lock.tryLock(0) ? 'taken' : 'busy');
      lock.releaseLock();
      seen.push('released');
    } catch (e) {
      seen.push(e.message);
    }
  }
  return seen;
}
`;
