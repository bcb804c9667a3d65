/** LockService and Lock: script, document and user locks shared by executions. */
import { fail } from '../errors';
import { type Exec, requireAuth, type ServiceHost } from './context';
import { hasPendingWrites } from './pending';

export function lockService(_host: ServiceHost, exec: Exec, method: string): unknown {
  requireAuth(exec, `LockService.${method}`);
  switch (method) {
    case 'getScriptLock':
      return 'script';
    case 'getDocumentLock':
      return exec.spreadsheetId ? `document:${exec.spreadsheetId}` : null;
    case 'getUserLock':
      return `user:${exec.user}`;
    default:
      return fail(`Unknown method LockService.${method}`);
  }
}

export async function lock(host: ServiceHost, exec: Exec, method: string, args: unknown[]): Promise<unknown> {
  const key = String(args[0]);
  requireAuth(exec, `Lock.${method}`);
  const owner = String(exec.id);
  if (method !== 'hasLock') host.chargeLockCall(exec);
  switch (method) {
    case 'tryLock':
      return host.locks.acquire(key, owner, Number(args[1]) || 0);
    case 'waitLock':
      if (!(await host.locks.acquire(key, owner, Number(args[1]) || 0))) {
        // Apps Script's text: "Lock timeout: another process was holding the lock for too long."
        fail('Lock timeout: another process was holding the lock for too long.');
      }
      return null;
    case 'releaseLock': {
      const pending = host.locks.holds(key, owner) && hasPendingWrites(exec);
      host.locks.release(key, owner);
      if (pending) host.noteReleaseWithPendingWrites(exec);
      return null;
    }
    case 'hasLock':
      return host.locks.holds(key, owner);
    default:
      return fail(`Unknown method Lock.${method}`);
  }
}
