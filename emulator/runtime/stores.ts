/** PropertiesService, CacheService and LockService (answered by services/properties.ts, cache.ts, lock.ts). */
import type { StoreD } from '../protocol';
import { call } from './core';

class Properties {
  constructor(private readonly _store: StoreD) {}
  // biome-ignore lint/suspicious/noExplicitAny: a script's services answer untyped values, as Apps Script's do
  private _call(method: string, ...args: unknown[]): any {
    return call(`Properties.${method}`, [this._store, ...args]);
  }
  getProperty(key: unknown): string | null {
    return this._call('getProperty', String(key));
  }
  setProperty(key: unknown, value: unknown): this {
    this._call('setProperty', String(key), String(value));
    return this;
  }
  getProperties(): Record<string, string> {
    return this._call('getProperties');
  }
  setProperties(properties: Record<string, unknown> | null | undefined, deleteAllOthers?: boolean): this {
    const values: Record<string, string> = {};
    for (const key of Object.keys(properties || {})) values[key] = String(properties![key]);
    this._call('setProperties', values, deleteAllOthers === true);
    return this;
  }
  getKeys(): string[] {
    return this._call('getKeys');
  }
  deleteProperty(key: unknown): this {
    this._call('deleteProperty', String(key));
    return this;
  }
  deleteAllProperties(): this {
    this._call('deleteAllProperties');
    return this;
  }
}

export const PropertiesService = {
  getScriptProperties(): Properties {
    return new Properties(call('PropertiesService.getScriptProperties'));
  },
  getDocumentProperties(): Properties | null {
    const store = call<StoreD | null>('PropertiesService.getDocumentProperties');
    return store ? new Properties(store) : null;
  },
  getUserProperties(): Properties {
    return new Properties(call('PropertiesService.getUserProperties'));
  },
};

class Cache {
  constructor(private readonly _store: StoreD) {}
  // biome-ignore lint/suspicious/noExplicitAny: a script's services answer untyped values, as Apps Script's do
  private _call(method: string, ...args: unknown[]): any {
    return call(`Cache.${method}`, [this._store, ...args]);
  }
  get(key: unknown): string | null {
    return this._call('get', String(key));
  }
  getAll(keys: Iterable<unknown>): Record<string, string> {
    return this._call('getAll', Array.from(keys, String));
  }
  put(key: unknown, value: unknown, expirationInSeconds?: number): void {
    this._call('put', String(key), String(value), expirationInSeconds);
  }
  putAll(values: Record<string, unknown> | null | undefined, expirationInSeconds?: number): void {
    const plain: Record<string, string> = {};
    for (const key of Object.keys(values || {})) plain[key] = String(values![key]);
    this._call('putAll', plain, expirationInSeconds);
  }
  remove(key: unknown): void {
    this._call('remove', String(key));
  }
  removeAll(keys: Iterable<unknown>): void {
    this._call('removeAll', Array.from(keys, String));
  }
}

export const CacheService = {
  getScriptCache(): Cache {
    return new Cache(call('CacheService.getScriptCache'));
  },
  getDocumentCache(): Cache | null {
    const store = call<StoreD | null>('CacheService.getDocumentCache');
    return store ? new Cache(store) : null;
  },
  getUserCache(): Cache {
    return new Cache(call('CacheService.getUserCache'));
  },
};

class Lock {
  constructor(private readonly _key: string) {}
  tryLock(timeoutInMillis: unknown): boolean {
    return call('Lock.tryLock', [this._key, Number(timeoutInMillis) || 0]);
  }
  waitLock(timeoutInMillis: unknown): void {
    call('Lock.waitLock', [this._key, Number(timeoutInMillis) || 0]);
  }
  releaseLock(): void {
    call('Lock.releaseLock', [this._key]);
  }
  hasLock(): boolean {
    return call('Lock.hasLock', [this._key]);
  }
}

export const LockService = {
  getScriptLock(): Lock {
    return new Lock(call('LockService.getScriptLock'));
  },
  getDocumentLock(): Lock | null {
    const key = call<string | null>('LockService.getDocumentLock');
    return key ? new Lock(key) : null;
  },
  getUserLock(): Lock {
    return new Lock(call('LockService.getUserLock'));
  },
};
