/**
 * The runtime's base: the bridge to the worker, the service-call RPC, and copying values between the worker's realm
 * and the execution's. The runtime is bundled and evaluated inside each execution's fresh vm context, so every
 * object made here belongs to that context; it reaches the outside only through `host` (protocol.ts HostBridge).
 */
import type { ExecInfo, HostBridge } from '../protocol';

/** The context's own Date, before runtime/date.ts replaces the global. */
export const RealDate = Date;

export let host: HostBridge;
export let exec: ExecInfo;

export function connect(bridge: HostBridge, info: ExecInfo): void {
  host = bridge;
  exec = info;
}

export const isDate = (v: unknown): v is Date => Object.prototype.toString.call(v) === '[object Date]';

/** Objects that describe themselves to the host (HtmlOutput, Range) instead of being copied field by field. */
export interface Exportable {
  _export(): unknown;
}

function isExportable(v: object): v is Exportable {
  return typeof (v as Partial<Exportable>)._export === 'function';
}

/** Copies data from the worker's realm into this one (arrays, plain objects, dates). */
export function importValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array || v.constructor?.name === 'Uint8Array') return v;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) out.push(importValue(v[i]));
    return out;
  }
  if (isDate(v)) return new RealDate(v.getTime());
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) out[key] = importValue((v as Record<string, unknown>)[key]);
  return out;
}

/** Data only, for the host: functions dropped, service objects described. */
export function exportValue(v: unknown, depth = 0): unknown {
  if (v === undefined || v === null || typeof v === 'function' || typeof v === 'symbol')
    return v === null ? null : undefined;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'object') return v;
  if (depth > 50) return undefined;
  if (isDate(v)) return new RealDate(v.getTime());
  if (isExportable(v)) return v._export();
  if (Array.isArray(v)) return Array.from(v, (item) => exportValue(item, depth + 1) ?? null);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    const item = exportValue((v as Record<string, unknown>)[key], depth + 1);
    if (item !== undefined) out[key] = item;
  }
  return out;
}

export function fail(message: string, name = 'Exception'): never {
  const error = new Error(message);
  error.name = name;
  throw error;
}

/** One service call answered by the host: `call('Range.getValues', [d])`. */
// biome-ignore lint/suspicious/noExplicitAny: a script's services answer untyped values, as Apps Script's do
export function call<T = any>(op: string, args: unknown[] = []): T {
  const reply = host.rpc(op, exportValue(args));
  if (!reply.ok) fail(reply.message, reply.name || 'Exception');
  return importValue(reply.value) as T;
}

/** Counts a call the runtime answers itself (no RPC), for the host's per-method counts. */
export const count = (name: string): void => host.count(name);

/** How Apps Script names argument types in "The parameters (...) don't match the method signature". */
export function describeArgs(args: unknown[]): string {
  return args
    .map((a) =>
      Array.isArray(a)
        ? Array.isArray(a[0])
          ? 'Object[][]'
          : 'Object[]'
        : a === null
          ? 'null'
          : typeof a === 'string'
            ? 'String'
            : typeof a === 'number'
              ? 'number'
              : 'Object',
    )
    .join(',');
}

/** A User (Session.getActiveUser(), Spreadsheet.getOwner()). */
export function makeUser(email: string): { getEmail(): string; toString(): string } {
  return { getEmail: () => email, toString: () => email };
}

/**
 * Methods that only forward to the host: getters return its value, the others return the object (chaining).
 * `type` is a class whose instances have `_call(method, ...args)`.
 */
export function delegate(
  type: { prototype: object },
  getters: readonly string[],
  chaining: readonly string[],
): void {
  const proto = type.prototype as Record<string, unknown>;
  for (const name of getters) {
    proto[name] = function (this: Forwarder) {
      return this._call(name);
    };
  }
  for (const name of chaining) {
    proto[name] = function (this: Forwarder, ...args: unknown[]) {
      this._call(name, ...args);
      return this;
    };
  }
}

export interface Forwarder {
  _call(method: string, ...args: unknown[]): unknown;
}
