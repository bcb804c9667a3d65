// Preloaded into the processes of the clasp and deploy tests (NODE_OPTIONS=--import=<this file>, so every node child
// inherits it): a TCP connection or a DNS lookup is refused and recorded in OFFLINE_GUARD_LOG, so an offline step
// that would reach the network fails the test instead of reaching Google. With OFFLINE_GUARD_NO_SPAWN=1 starting
// any process but esbuild's service (tsx and the build run it) is refused and recorded too (a deploy refusal must
// stop before clasp runs).
import childProcess from 'node:child_process';
import dns from 'node:dns';
import { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const log = process.env.OFFLINE_GUARD_LOG;

function refuse(what) {
  if (log) appendFileSync(log, `${what}\n`);
  throw new Error(`offline test: ${what} refused`);
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  // Node's own callers pass [options, callback] as one normalized array.
  const options = Array.isArray(args[0]) ? args[0][0] : args[0];
  const isLocalPipe =
    typeof options === 'string' ||
    (options && typeof options === 'object' && typeof options.path === 'string');
  if (!isLocalPipe) refuse(`connect ${options?.host ?? 'localhost'}:${options?.port ?? options}`);
  return connect.apply(this, args);
};
dns.lookup = (host) => refuse(`dns lookup ${host}`);
dns.promises.lookup = async (host) => refuse(`dns lookup ${host}`);

if (process.env.OFFLINE_GUARD_NO_SPAWN === '1') {
  const isEsbuildService = (command) => /[\\/]esbuild(\.exe)?$/.test(String(command));
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    const original = childProcess[name];
    childProcess[name] = (command, ...rest) => {
      if (isEsbuildService(command)) return original(command, ...rest);
      const args = Array.isArray(rest[0]) ? rest[0].join(' ') : '';
      return refuse(`${name} ${command} ${args}`.trim());
    };
  }
}
syncBuiltinESMExports();
