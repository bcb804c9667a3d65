/**
 * `npm run bench:coldload`: what a =FINDEMAIL call loads before it runs, before and after Code.js became the
 * whole add-on, side by side in one run:
 * - before: the split layout of commit 8ddb5f4, its light Code.js (FINDEMAIL and the simple triggers);
 *   and what its heavy entry points (menu actions, sidebar calls) loaded: that Code.js, then Server.html evaluated;
 * - after: the shipped Code.js (one bundle of src/main.ts, minified, names kept), what every entry point loads.
 * The "before" build is that commit's own scripts/build.ts, run on its files (`git archive`) in a temporary folder
 * with this project's node_modules; without the commit (a shallow clone) the bench measures "after" alone and says so.
 *
 * Each load compiles and runs the file in a fresh vm context, as Apps Script starts an execution; a unique leading
 * comment keeps V8's compilation cache from serving an earlier load. The variants take turns, load by load, so drift
 * on a busy machine hits all. Apps Script's own start-up and, before, the service call that read Server.html are not
 * measured.
 *
 *   npx tsx bench/coldload.ts [--loads=N] [--max-seconds=S]   N loads of each (default 200, at most 2,000),
 *                                                              stopping early after S seconds (default 60)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import vm from 'node:vm';
import { buildAll, SANDBOX_BASE_URL } from '../scripts/build';

/** The last commit with the split layout (light Code.js + Server.html). */
const SPLIT_COMMIT = '8ddb5f4';
const ROOT = join(__dirname, '..');
const MAX_LOADS = 2_000;
const WARM_UP_LOADS = 10;
const BUILD_TIMEOUT_MS = 180_000;

interface Build {
  code: string;
  /** Server.html's content (split layout); '' for one script file. */
  server: string;
}

interface Variant {
  label: string;
  bytes: number;
  load: () => number;
  timesMs: number[];
}

function parseOptions(argv: string[]): { loads: number; maxSeconds: number } {
  let loads = 200;
  let maxSeconds = 60;
  for (const arg of argv) {
    const [name, value] = arg.split('=');
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0) throw new Error(`${arg}: expected a positive number`);
    if (name === '--loads') loads = Math.min(Math.floor(number), MAX_LOADS);
    else if (name === '--max-seconds') maxSeconds = number;
    else throw new Error(`Unknown argument ${arg}`);
  }
  return { loads, maxSeconds };
}

let loadNumber = 0;

/** A fresh context; for the split layout, an HtmlService that serves Server.html (unique per load, as the code is). */
function freshContext(server: string): vm.Context {
  return vm.createContext({
    HtmlService: {
      createHtmlOutputFromFile: () => ({ getContent: () => `// server load ${loadNumber}\n${server}` }),
    },
  });
}

function runCode(code: string, context: vm.Context): void {
  new vm.Script(`// cold load ${loadNumber}\n${code}`, { filename: 'Code.js' }).runInContext(context);
  if (typeof context.FINDEMAIL !== 'function') throw new Error('the bundle declared no FINDEMAIL');
}

/** Compiles and runs Code.js in a new context (loading touches no Apps Script service); ms. */
function codeLoad(build: Build): number {
  loadNumber++;
  const context = freshContext(build.server);
  const start = performance.now();
  runCode(build.code, context);
  return performance.now() - start;
}

/** The split layout's first heavy call: its Code.js, then loadServer_() evaluating Server.html; ms. */
function splitHeavyCall(build: Build): number {
  loadNumber++;
  const context = freshContext(build.server);
  const start = performance.now();
  runCode(build.code, context);
  const server = vm.runInContext('loadServer_()', context);
  const elapsed = performance.now() - start;
  if (typeof server?.enrichSelection !== 'function') throw new Error('Server.html gave no enrichSelection');
  return elapsed;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** The shipped layout, built by this checkout's scripts/build.ts. */
async function buildAfter(dir: string): Promise<Build> {
  const out = join(dir, 'after');
  await buildAll(SANDBOX_BASE_URL, out, 'names');
  return { code: readFileSync(join(out, 'Code.js'), 'utf8'), server: '' };
}

/**
 * The split layout, built by SPLIT_COMMIT's own scripts/build.ts on that commit's files, or the reason it cannot be
 * (the commit is not in this clone, or its build failed).
 */
function buildBefore(dir: string): Build | string {
  try {
    execFileSync('git', ['cat-file', '-e', `${SPLIT_COMMIT}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    return `commit ${SPLIT_COMMIT} is not in this clone`;
  }
  const source = join(dir, 'before-src');
  const out = join(dir, 'before');
  mkdirSync(source);
  const archive = execFileSync('git', ['archive', '--format=tar', SPLIT_COMMIT], {
    cwd: ROOT,
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', source], { input: archive });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(source, 'node_modules'), 'dir');
  const env = { ...process.env };
  delete env.API_BASE_URL;
  const build = spawnSync(
    process.execPath,
    [require.resolve('tsx/cli'), join(source, 'scripts', 'build.ts'), '--out', out],
    { cwd: source, env, encoding: 'utf8', timeout: BUILD_TIMEOUT_MS },
  );
  if (build.status !== 0) return `the build of ${SPLIT_COMMIT} failed: ${build.stderr || build.error}`;
  return {
    code: readFileSync(join(out, 'Code.js'), 'utf8'),
    server: readFileSync(join(out, 'Server.html'), 'utf8'),
  };
}

async function main(): Promise<void> {
  const { loads, maxSeconds } = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'coldload-'));
  let after: Build;
  let before: Build | string;
  try {
    after = await buildAfter(dir);
    before = buildBefore(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const bytes = (text: string) => Buffer.byteLength(text);
  const afterVariant: Variant = {
    label: 'after: Code.js, the whole add-on',
    bytes: bytes(after.code),
    load: () => codeLoad(after),
    timesMs: [],
  };
  const variants: Variant[] = [afterVariant];
  if (typeof before !== 'string') {
    const split = before;
    variants.unshift(
      {
        label: `before: light Code.js (${SPLIT_COMMIT})`,
        bytes: bytes(split.code),
        load: () => codeLoad(split),
        timesMs: [],
      },
      {
        label: 'before, heavy call: + Server.html',
        bytes: bytes(split.code) + bytes(split.server),
        load: () => splitHeavyCall(split),
        timesMs: [],
      },
    );
  }
  for (const variant of variants) for (let i = 0; i < WARM_UP_LOADS; i++) variant.load();
  const deadline = performance.now() + maxSeconds * 1000;
  for (let i = 0; i < loads && performance.now() < deadline; i++)
    for (const variant of variants) variant.timesMs.push(variant.load());

  const median = (variant: Variant) => quantile(variant.timesMs, 0.5);
  const [reference] = variants;
  console.log(`Cold load in a fresh vm context, ${reference.timesMs.length} loads of each, taking turns:\n`);
  console.log(
    `${'what is loaded'.padEnd(36)}${'bytes'.padStart(8)}${'median ms'.padStart(11)}${'p90 ms'.padStart(9)}` +
      `${'this / first'.padStart(14)}`,
  );
  for (const variant of variants) {
    console.log(
      `${variant.label.padEnd(36)}${String(variant.bytes).padStart(8)}` +
        `${median(variant).toFixed(3).padStart(11)}${quantile(variant.timesMs, 0.9).toFixed(3).padStart(9)}` +
        `${`${(median(variant) / median(reference)).toFixed(2)}x`.padStart(14)}`,
    );
  }
  if (typeof before === 'string') {
    console.log(`\nNo "before" comparison: ${before}.`);
    return;
  }
  const [light, heavy] = variants;
  console.log(
    `\nA =FINDEMAIL call now loads ${(bytes(after.code) / light.bytes).toFixed(2)}x the bytes of the light ` +
      `Code.js and its cold load takes ${(median(afterVariant) / median(light)).toFixed(2)}x as long ` +
      `(+${(median(afterVariant) - median(light)).toFixed(3)} ms, ratio of medians). A menu action or sidebar call ` +
      `now takes ${(median(afterVariant) / median(heavy)).toFixed(2)}x the split layout's heavy load, which also ` +
      'paid a service call to read Server.html (not measured).',
  );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
