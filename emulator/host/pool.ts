/**
 * The worker threads that run executions: at most `maxConcurrent` at once (the others wait for a thread), each
 * execution killed with its thread at its time limit, each service call of a thread answered here over the RPC
 * port (see worker/thread.ts for the other side).
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { WORKER_START_GRACE_MS } from '../constants';
import { AppsScriptException } from '../errors';
import { SheetsError } from '../model/spreadsheet';
import type { DoneMessage, RpcRequest, RunMessage, WorkerData, WorkerMessage } from '../protocol';
import type { Exec } from '../services/context';
import type { LogLine } from '../types';
import { workerSources } from './worker-source';

/** How an execution on a thread ended: its report, or killed at the limit, a crashed thread, or close(). */
export type Outcome = DoneMessage | 'timeout' | 'crash' | 'closed';

export interface PoolHooks {
  /** Answers one service call of an execution (throws the service's error). */
  call(exec: Exec, request: RpcRequest): Promise<unknown>;
  log(line: LogLine): void;
  /** An execution calls Utilities.sleep (as its thread starts sleeping). */
  sleep(execId: number, ms: number): void;
  /** The environment's clock, sent with every answer. */
  now(): number;
}

interface WorkerSlot {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
  /** The pool's listeners on the thread and its RPC port (a spare thread has none). */
  listeners?: { fromWorker: (message: WorkerMessage) => void; fromPort: (request: RpcRequest) => void };
  exec?: Exec;
  finish?: (message: DoneMessage) => void;
  started?: () => void;
  /** Ends the execution under way because the environment closes. */
  abort?: () => void;
  /** Ends the execution under way as its time limit does. */
  timeOut?: () => void;
  /** Brings the execution's time limit `ms` nearer (time passed on the environment's clock). */
  spend?: (ms: number) => void;
}

/**
 * Idle threads of the environments this process closed, for the next environment: starting a thread (Node's
 * bootstrap, then compiling the runtime and the script) costs more CPU than most executions. A thread keeps nothing
 * of an execution (each runs in a fresh vm context; the thread caches only compiled code), and a thread that ended
 * otherwise than by finishing its execution (time limit, crash, close) is never kept. Unreferenced while spare, so
 * they never keep the process alive.
 */
const spareThreads: WorkerSlot[] = [];
const MAX_SPARE_THREADS = 32;

export class WorkerPool {
  private readonly idle: WorkerSlot[] = [];
  private readonly busy = new Set<WorkerSlot>();
  /** Executions waiting for a thread; called without a slot when the pool closes. */
  private readonly queue: Array<(slot?: WorkerSlot) => void> = [];
  private closed = false;

  constructor(
    private readonly maxConcurrent: number,
    private readonly hooks: PoolHooks,
  ) {}

  /** Runs one execution on a thread; `limitMs` counts from when the thread starts it. */
  async run(
    exec: Exec,
    message: RunMessage,
    limitMs: number,
  ): Promise<{ outcome: Outcome; startedAt: number }> {
    const slot = await this.acquire();
    const startedAt = Date.now();
    slot.exec = exec;
    const outcome = await new Promise<Outcome>((resolve) => {
      // The limit runs from when the worker starts the execution: starting a worker thread is the emulator's
      // cost, not the script's (a fresh thread can take longer than a scaled-down limit on a busy machine).
      let timer = setTimeout(() => resolve('timeout'), limitMs + WORKER_START_GRACE_MS);
      let endsAt: number | undefined;
      slot.started = () => {
        clearTimeout(timer);
        endsAt = Date.now() + limitMs;
        timer = setTimeout(() => resolve('timeout'), limitMs);
      };
      slot.spend = (ms) => {
        if (endsAt === undefined) return;
        endsAt -= ms;
        clearTimeout(timer);
        timer = setTimeout(() => resolve('timeout'), Math.max(0, endsAt - Date.now()));
      };
      const onCrash = () => {
        clearTimeout(timer);
        resolve('crash');
      };
      slot.abort = () => {
        clearTimeout(timer);
        resolve('closed');
      };
      slot.timeOut = () => {
        clearTimeout(timer);
        resolve('timeout');
      };
      if (this.closed) slot.abort();
      slot.finish = (done) => {
        clearTimeout(timer);
        // A reused worker would otherwise collect one listener per execution.
        slot.worker.off('error', onCrash);
        resolve(done);
      };
      slot.worker.once('error', onCrash);
      slot.worker.postMessage(message);
    });
    exec.done = true;
    // The thread may be blocked in a service call or a loop: it is killed, as Apps Script ends the execution.
    if (typeof outcome === 'string') this.discard(slot);
    else this.release(slot);
    return { outcome, startedAt };
  }

  /** Brings the time limit of every execution under way `ms` nearer. */
  spend(ms: number): void {
    for (const slot of this.busy) if (slot.exec && !slot.exec.done) slot.spend?.(ms);
  }

  /** Ends the executions under way that `which` picks as their time limit does; returns how many. */
  timeOut(which: (exec: Exec) => boolean): number {
    let ended = 0;
    for (const slot of this.busy) {
      if (slot.exec && !slot.exec.done && slot.timeOut && which(slot.exec)) {
        slot.timeOut();
        ended++;
      }
    }
    return ended;
  }

  /** Ends the executions under way ('closed'), rejects those waiting for a thread, stops every thread. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.queue.splice(0)) waiter();
    for (const slot of this.busy) slot.abort?.();
    for (const slot of this.idle) {
      this.detach(slot);
      if (spareThreads.length < MAX_SPARE_THREADS) {
        slot.worker.unref();
        slot.port.unref();
        spareThreads.push(slot);
        continue;
      }
      slot.port.close();
      await slot.worker.terminate();
    }
    for (const slot of this.busy) {
      this.detach(slot);
      slot.port.close();
      await slot.worker.terminate();
    }
    this.idle.length = 0;
    this.busy.clear();
  }

  /** A spare thread of a closed environment, or a new one; listened to by this pool. */
  private newSlot(): WorkerSlot {
    const spare = spareThreads.pop();
    if (spare) {
      spare.worker.ref();
      spare.port.ref();
    }
    const slot = spare ?? startThread();
    this.attach(slot);
    return slot;
  }

  private detach(slot: WorkerSlot): void {
    if (!slot.listeners) return;
    slot.worker.off('message', slot.listeners.fromWorker);
    slot.port.off('message', slot.listeners.fromPort);
    slot.listeners = undefined;
  }

  private attach(slot: WorkerSlot): void {
    const fromWorker = (message: WorkerMessage) => {
      if (message.type === 'log') {
        this.hooks.log({ execId: message.execId, level: message.level, message: message.message });
      } else if (message.type === 'sleep') {
        this.hooks.sleep(message.execId, message.ms);
      } else if (message.type === 'started' && slot.exec?.id === message.execId) {
        slot.started?.();
      } else if (message.type === 'done' && slot.exec?.id === message.execId) {
        slot.finish?.(message);
      }
    };
    const fromPort = (request: RpcRequest) => {
      const exec = slot.exec;
      if (!exec || exec.id !== request.execId || exec.done) return;
      this.hooks.call(exec, request).then(
        (value) => this.reply(slot, exec, { ok: true, value }),
        (error: unknown) =>
          this.reply(slot, exec, {
            ok: false,
            name:
              error instanceof AppsScriptException || error instanceof SheetsError ? 'Exception' : 'Error',
            message: error instanceof Error ? error.message : String(error),
          }),
      );
    };
    slot.worker.on('message', fromWorker);
    slot.port.on('message', fromPort);
    slot.listeners = { fromWorker, fromPort };
  }

  private reply(slot: WorkerSlot, exec: Exec, message: Record<string, unknown>): void {
    if (exec.done || slot.exec !== exec) return;
    slot.port.postMessage({ ...message, now: this.hooks.now() });
    Atomics.store(slot.flag, 0, 1);
    Atomics.notify(slot.flag, 0);
  }

  private acquire(): Promise<WorkerSlot> {
    if (this.closed) return Promise.reject(new Error('The environment is closed.'));
    const slot = this.idle.pop();
    if (slot) {
      this.busy.add(slot);
      return Promise.resolve(slot);
    }
    if (this.busy.size < this.maxConcurrent) {
      const fresh = this.newSlot();
      this.busy.add(fresh);
      return Promise.resolve(fresh);
    }
    return new Promise((resolve, reject) =>
      this.queue.push((slot) => (slot ? resolve(slot) : reject(new Error('The environment is closed.')))),
    );
  }

  private clear(slot: WorkerSlot): void {
    slot.exec = undefined;
    slot.finish = undefined;
    slot.started = undefined;
    slot.abort = undefined;
  }

  private release(slot: WorkerSlot): void {
    this.clear(slot);
    const waiter = this.queue.shift();
    if (waiter) waiter(slot);
    else {
      this.busy.delete(slot);
      this.idle.push(slot);
    }
  }

  private discard(slot: WorkerSlot): void {
    this.clear(slot);
    this.detach(slot);
    this.busy.delete(slot);
    slot.port.close();
    void slot.worker.terminate();
    const waiter = this.queue.shift();
    if (waiter) {
      const fresh = this.newSlot();
      this.busy.add(fresh);
      waiter(fresh);
    }
  }
}

/** A new worker thread with its RPC port, not yet listened to. */
function startThread(): WorkerSlot {
  const sources = workerSources();
  const channel = new MessageChannel();
  const flagBuffer = new SharedArrayBuffer(4);
  const workerData: WorkerData = {
    rpcPort: channel.port2,
    flagBuffer,
    runtimeSource: sources.runtime,
  };
  const worker = new Worker(sources.thread, { eval: true, workerData, transferList: [channel.port2] });
  worker.on('error', () => undefined);
  return { worker, port: channel.port1, flag: new Int32Array(flagBuffer) };
}
