import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { DEFAULT_KEY, formatLogLine, parseCli } from '../../sandbox/cliArgs';
import { KEY, lookup, start, waitFor } from './helpers';

const ROOT = path.resolve(__dirname, '../..');

describe('startSandbox', () => {
  it('binds to 127.0.0.1 only, on a random port', async () => {
    const sandbox = await start();
    try {
      const address = sandbox.httpServer.address();
      expect(address).toMatchObject({ address: '127.0.0.1', family: 'IPv4', port: sandbox.port });
      expect(sandbox.port).toBeGreaterThan(0);
      expect(sandbox.origin).toBe(`http://127.0.0.1:${sandbox.port}`);
      expect(sandbox.baseUrl).toBe(`http://127.0.0.1:${sandbox.port}/api/v1/`);
      expect((await lookup(sandbox, 'https://www.network.com/in/jane-doe')).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it('close() ends open connections, even a request still waiting, and frees the port', async () => {
    const sandbox = await start({ faults: { slowMs: 30_000 } });
    let timer: NodeJS.Timeout | undefined;
    try {
      const pending = lookup(sandbox, 'https://www.network.com/in/jane-doe').then(
        () => 'answered',
        () => 'failed',
      );
      await waitFor(() => sandbox.service.inFlight === 1);
      const closed = await Promise.race([
        sandbox.close().then(() => 'closed'),
        new Promise((resolve) => {
          timer = setTimeout(() => resolve('still open'), 5000);
        }),
      ]);
      expect(closed).toBe('closed');
      expect(await pending).toBe('failed');
      await expect(fetch(sandbox.origin)).rejects.toThrow();
    } finally {
      clearTimeout(timer);
      await sandbox.close();
    }
  });

  it('reports a port in use', async () => {
    const first = await start();
    try {
      await expect(start({ port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});

describe('CLI options', () => {
  it('has the documented defaults', () => {
    expect(parseCli([])).toEqual({
      port: 8787,
      organizations: [{ name: 'demo', keys: [DEFAULT_KEY], credits: 1000 }],
      faults: {},
      seed: undefined,
    });
  });

  it('parses keys, credits, latency, rates and organizations', () => {
    expect(
      parseCli([
        '--port',
        '9000',
        '--key',
        'demo-key',
        '--credits',
        '5',
        '--latency',
        '100-800',
        '--error500-rate',
        '0.1',
        '--reset-rate',
        '0.05',
        '--org',
        'a:ka:3',
        '--org',
        'b:kb:0',
      ]),
    ).toEqual({
      port: 9000,
      organizations: [
        { name: 'demo', keys: ['demo-key'], credits: 5 },
        { name: 'a', keys: ['ka'], credits: 3 },
        { name: 'b', keys: ['kb'], credits: 0 },
      ],
      faults: { latencyMs: [100, 800], error500Rate: 0.1, resetRate: 0.05 },
      seed: undefined,
    });
    expect(parseCli(['--latency', '200'])).toMatchObject({ faults: { latencyMs: 200 } });
    expect(parseCli(['--org', 'a:ka:3'])).toMatchObject({
      organizations: [{ name: 'a', keys: ['ka'], credits: 3 }],
    });
    expect(parseCli(['--help'])).toBe('help');
  });

  it('rejects bad values', () => {
    expect(() => parseCli(['--port', 'x'])).toThrow(/--port/);
    expect(() => parseCli(['--error500-rate', '1.5'])).toThrow(/error500-rate/);
    expect(() => parseCli(['--latency', '800-100'])).toThrow(/latency/);
    expect(() => parseCli(['--org', 'nokey'])).toThrow(/name:key:credits/);
    expect(() => parseCli(['--bogus'])).toThrow();
  });

  it('logs a request without the key', () => {
    const line = formatLogLine({
      seq: 3,
      startedAt: 1000,
      endedAt: 1250,
      method: 'POST',
      path: '/api/v1/network_finder',
      keyKnown: true,
      organization: 'demo',
      networkUrl: 'https://www.network.com/in/jane-doe',
      status: 200,
      charged: 1,
    });
    expect(line).toContain('#3 POST /api/v1/network_finder 200 org=demo charged=1 250ms');
  });
});

describe('npm run sandbox (sandbox/cli.ts)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('prints the base URL and the key, logs requests without the key, and stops on SIGINT', async () => {
    const cliKey = `${KEY}-cli`;
    child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
        'sandbox/cli.ts',
        '--port',
        '0',
        '--key',
        cliKey,
        '--credits',
        '2',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));

    // The banner's lines may arrive in separate chunks: its last line says it is all there.
    await waitFor(() => out.includes('Press Ctrl-C to stop.'), 30_000);
    expect(out).toMatch(/Base URL: http:\/\/127\.0\.0\.1:\d+\/api\/v1\//);
    expect(out).toContain(cliKey);
    const baseUrl = /Base URL: (\S+)/.exec(out)![1];
    const res = await fetch(`${baseUrl}network_finder`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-KEY': cliKey },
      body: JSON.stringify({ network_url: 'https://www.network.com/in/jane-doe' }),
    });
    expect(res.status).toBe(200);
    await waitFor(() => /#1 POST \/api\/v1\/network_finder 200 org=demo charged=1/.test(out));
    const logLines = out.split('\n').filter((line) => line.includes('#1 POST'));
    expect(logLines).toHaveLength(1);
    expect(logLines[0]).not.toContain(cliKey);

    child.kill('SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      exited,
      new Promise((resolve) => {
        timer = setTimeout(() => resolve('timeout'), 10_000);
      }),
    ]);
    clearTimeout(timer);
    expect(code).toBe(0);
  });
});
