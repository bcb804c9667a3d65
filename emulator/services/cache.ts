/** CacheService and Cache. */
import { fail } from '../errors';
import type { StoreD } from '../protocol';
import { type Exec, requireAuth, type ServiceHost } from './context';

export function cacheService(_host: ServiceHost, exec: Exec, method: string): unknown {
  requireAuth(exec, `CacheService.${method}`);
  switch (method) {
    case 'getScriptCache':
      return { kind: 'script' };
    case 'getDocumentCache':
      return exec.spreadsheetId ? { kind: 'document', id: exec.spreadsheetId } : null;
    case 'getUserCache':
      return { kind: 'user', id: exec.user };
    default:
      return fail(`Unknown method CacheService.${method}`);
  }
}

export function cache(host: ServiceHost, exec: Exec, method: string, args: unknown[]): unknown {
  requireAuth(exec, `Cache.${method}`);
  const d = args[0] as StoreD;
  const cache =
    d.kind === 'script'
      ? host.scriptCache
      : d.kind === 'document'
        ? host.documentCache(String(d.id))
        : host.userCache(String(d.id));
  const now = host.now();
  switch (method) {
    case 'get':
      return cache.get(String(args[1]), now);
    case 'getAll':
      return cache.getAll(args[1] as string[], now);
    case 'put':
      cache.put({ [String(args[1])]: args[2] }, args[3] as number | undefined, now);
      return null;
    case 'putAll':
      cache.put(args[1] as Record<string, unknown>, args[2] as number | undefined, now);
      return null;
    case 'remove':
      cache.remove([String(args[1])]);
      return null;
    case 'removeAll':
      cache.remove(args[1] as string[]);
      return null;
    default:
      return fail(`Unknown method Cache.${method}`);
  }
}
