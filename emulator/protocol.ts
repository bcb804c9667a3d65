/**
 * What the host and the worker threads say to each other, and the descriptors of service objects that cross
 * between them. A service object in the script (a Range, a Properties store) holds only its descriptor; every
 * method call is a synchronous RPC `{ op: 'Range.getValues', args: [descriptor, ...] }` answered by the host.
 */
import type { MessagePort } from 'node:worker_threads';
import type { AuthMode } from './types';

export interface SpreadsheetD {
  ss: string;
}

export interface SheetD extends SpreadsheetD {
  sheet: number;
}

export interface RangeD extends SheetD {
  row: number;
  col: number;
  numRows: number;
  numCols: number;
}

/** A property store or a cache: the script's, a document's or a user's. */
export interface StoreD {
  kind: 'script' | 'document' | 'user';
  id?: string;
}

export interface TriggerD {
  id: string;
  handler: string;
  eventType: string;
  source: string;
  sourceId?: string;
}

/** An HtmlOutput as the host records it. */
export interface OutputData {
  type: 'HtmlOutput';
  title: string;
  content: string;
  width?: number;
  height?: number;
}

/** What the runtime knows about its execution. */
export interface ExecInfo {
  timeZone: string;
  spreadsheetId?: string;
  authMode: AuthMode;
}

export interface ErrorData {
  name: string;
  message: string;
  stack?: string;
}

// ---------------------------------------------------------------------- host -> worker (parentPort)

export interface RunMessage {
  type: 'run';
  execId: number;
  /** The project's script files (host/scripts.ts), loaded in this order. */
  scriptPaths: string[];
  fn: string;
  args: unknown[];
  event?: Record<string, unknown>;
  exec: ExecInfo;
  /** The environment's clock. */
  now: number;
}

// ---------------------------------------------------------------------- worker -> host (parentPort)

export interface StartedMessage {
  type: 'started';
  execId: number;
}

export interface LogMessage {
  type: 'log';
  execId: number;
  level: string;
  message: string;
  time: number;
}

export interface DoneMessage {
  type: 'done';
  execId: number;
  ok: boolean;
  value?: unknown;
  error?: ErrorData;
  /** Calls the runtime answered itself (no RPC), by name, not yet reported. */
  counts: Record<string, number>;
  outputs: OutputData[];
  /** When the script function was called, its files loaded (wall clock, as FetchRecord times). */
  calledAt?: number;
}

/** Utilities.sleep called: posted as the thread starts sleeping. */
export interface SleepMessage {
  type: 'sleep';
  execId: number;
  ms: number;
}

export type WorkerMessage = StartedMessage | LogMessage | SleepMessage | DoneMessage;

// ---------------------------------------------------------------------- the RPC port

export interface RpcRequest {
  execId: number;
  op: string;
  args: unknown[];
  counts: Record<string, number>;
}

export type RpcReply = ({ ok: true; value: unknown } | { ok: false; name: string; message: string }) & {
  now: number;
};

/** Data given to each worker thread. */
export interface WorkerData {
  rpcPort: MessagePort;
  flagBuffer: SharedArrayBuffer;
  /** The runtime bundle (runtime/index.ts), an expression that evaluates to its exports. */
  runtimeSource: string;
}

/** Helpers of the worker's realm the runtime (inside a vm context) calls; their results are imported. */
export interface HostBridge {
  rpc(op: string, args: unknown): RpcReply;
  now(): number;
  count(name: string): void;
  log(level: string, message: string): void;
  sleep(ms: number): void;
  format(args: unknown[]): string;
  digest(algorithm: string, data: ByteSource, hmacKey?: ByteSource): number[] | null;
  base64Encode(data: ByteSource, webSafe: boolean): string;
  base64Decode(text: string, webSafe: boolean): number[] | null;
  bytes(data: ByteSource): number[];
  text(data: ByteSource, charset?: string): string;
  uuid(): string;
  formatDate(ms: number, timeZone: string, pattern: string): string;
}

/** Bytes as a script gives them: text (UTF-8), signed bytes, or a typed array. */
export type ByteSource = string | number[] | Uint8Array;

/** What installRuntime gives the worker back. */
export interface RuntimeHandle {
  importValue(value: unknown): unknown;
  exportValue(value: unknown): unknown;
  createdOutputs(): OutputData[];
  makeEvent(event: Record<string, unknown>, authMode: AuthMode): Record<string, unknown>;
}
