/**
 * The worker thread of the Apps Script emulator (compiled by host/worker-source.ts, run with `eval`).
 *
 * Each execution gets a fresh vm context (a new global scope, as in Apps Script), the service globals installed by
 * the runtime (runtime/index.ts, evaluated inside that context), then the project's script files (dist/Code.js;
 * never an HTML file), then the named function is called. Every service call is a synchronous RPC to the host: post on a MessagePort, Atomics.wait on a
 * SharedArrayBuffer, read the reply with receiveMessageOnPort. The host may kill this thread at any point (time
 * limit).
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import vm from 'node:vm';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type {
  DoneMessage,
  ErrorData,
  HostBridge,
  RpcReply,
  RpcRequest,
  RunMessage,
  RuntimeHandle,
  WorkerData,
} from '../protocol';
import { nodeHelpers } from './bridge';

type InstallRuntime = (host: HostBridge, exec: RunMessage['exec']) => RuntimeHandle;

const { rpcPort, flagBuffer, runtimeSource } = workerData as WorkerData;
const port = parentPort!;
const flag = new Int32Array(flagBuffer);

let clockBase = Date.now();
let clockMono = performance.now();
let pendingCounts: Record<string, number> = {};
let currentExec: number | null = null;

function envNow(): number {
  return Math.floor(clockBase + (performance.now() - clockMono));
}

function syncClock(now: number): void {
  clockBase = now;
  clockMono = performance.now();
}

function takeCounts(): Record<string, number> {
  const counts = pendingCounts;
  pendingCounts = {};
  return counts;
}

function rpc(op: string, args: unknown): RpcReply {
  Atomics.store(flag, 0, 0);
  const request: RpcRequest = { execId: currentExec ?? 0, op, args: args as unknown[], counts: takeCounts() };
  rpcPort.postMessage(request);
  for (;;) {
    Atomics.wait(flag, 0, 0, 1000);
    const received = receiveMessageOnPort(rpcPort);
    if (received) {
      const reply = received.message as RpcReply;
      syncClock(reply.now);
      return reply;
    }
    // Not answered yet (a lock wait, an HTTP request): keep waiting; the host kills this thread at the deadline.
  }
}

const bridge: HostBridge = {
  ...nodeHelpers,
  sleep(ms) {
    port.postMessage({ type: 'sleep', execId: currentExec, ms });
    nodeHelpers.sleep(ms);
  },
  rpc,
  now: envNow,
  count(name) {
    pendingCounts[name] = (pendingCounts[name] || 0) + 1;
  },
  log(level, message) {
    port.postMessage({ type: 'log', execId: currentExec, level, message, time: envNow() });
  },
};

const runtimeScript = new vm.Script(runtimeSource, { filename: 'emulator-runtime.js' });
const bundles = new Map<string, { mtimeMs: number; size: number; script: vm.Script }>();

function loadBundle(path: string): vm.Script {
  const stat = fs.statSync(path);
  const cached = bundles.get(path);
  if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.script;
  const script = new vm.Script(fs.readFileSync(path, 'utf8'), { filename: path.split(/[\\/]/).pop() });
  bundles.set(path, { mtimeMs: stat.mtimeMs, size: stat.size, script });
  return script;
}

function errorOf(error: unknown): ErrorData {
  if (error && typeof error === 'object' && typeof (error as Error).message === 'string') {
    const e = error as Error;
    return { name: String(e.name || 'Error'), message: e.message, stack: String(e.stack || '') };
  }
  return { name: 'Error', message: String(error), stack: '' };
}

function done(execId: number, result: Omit<DoneMessage, 'type' | 'execId' | 'counts'>): void {
  const message: DoneMessage = { type: 'done', execId, counts: takeCounts(), ...result };
  port.postMessage(message);
}

function run(message: RunMessage): void {
  const { execId, scriptPaths, fn, args, event, exec, now } = message;
  currentExec = execId;
  port.postMessage({ type: 'started', execId });
  syncClock(now);
  let runtime: RuntimeHandle | undefined;
  let calledAt: number | undefined;
  try {
    const context = vm.createContext({}, { name: `Apps Script execution ${execId}` });
    const install = (runtimeScript.runInContext(context) as { installRuntime: InstallRuntime })
      .installRuntime;
    runtime = install(bridge, exec);
    for (const path of scriptPaths) loadBundle(path).runInContext(context);
    const target = context[fn];
    if (typeof target !== 'function')
      throw Object.assign(new Error(`Script function not found: ${fn}`), { name: 'Exception' });
    const callArgs =
      event === undefined
        ? (runtime.importValue(args) as unknown[])
        : [runtime.makeEvent(event, exec.authMode)];
    calledAt = Date.now();
    const value = runtime.exportValue(target.apply(undefined, callArgs));
    done(execId, { ok: true, value, outputs: runtime.createdOutputs(), calledAt });
  } catch (error) {
    done(execId, {
      ok: false,
      error: errorOf(error),
      outputs: runtime ? runtime.createdOutputs() : [],
      calledAt,
    });
  } finally {
    currentExec = null;
  }
}

port.on('message', (message: RunMessage) => {
  if (message && message.type === 'run') run(message);
});
