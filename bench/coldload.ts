/**
 * `npm run bench:coldload`: what a =FINDEMAIL call loads before it runs, before and after the split into a light
 * Code.js and the server bundle (Server.html), side by side in one run:
 * - old: the build before issue 12, every entry point in one unminified Code.js (`buildAll(…, 'none', 'single')`);
 * - single, minified: the same one bundle minified with names kept (the build between: still ~80 KB);
 * - new: the shipped Code.js (light bundle, minified, names kept).
 * And what the first heavy call of an execution (a menu action, a google.script.run call) pays on top of loading
 * Code.js: loadServer_() reading Server.html's content and evaluating it; the total beside the old load.
 *
 * Each load compiles and runs the file in a fresh vm context, as Apps Script starts an execution; a unique leading
 * comment keeps V8's compilation cache from serving an earlier load. The variants take turns, load by load, so drift
 * on a busy machine hits all. The HtmlService here hands the content over at once: in Apps Script, reading the file
 * is a service call whose latency comes on top (not measured here).
 *
 *   npx tsx bench/coldload.ts [--loads=N] [--max-seconds=S]   N loads of each (default 200, at most 2,000),
 *                                                              stopping early after S seconds (default 60)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import vm from 'node:vm';
import { buildAll, type Layout, type MinifyMode, SANDBOX_BASE_URL } from '../scripts/build';

const MAX_LOADS = 2_000;
const WARM_UP_LOADS = 10;

interface Build {
  code: string;
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

/** A fresh context whose HtmlService serves Server.html's content (unique per load, as the code is). */
function freshContext(server: string): vm.Context {
  const context = vm.createContext({
    HtmlService: {
      createHtmlOutputFromFile: () => ({ getContent: () => `// server load ${loadNumber}\n${server}` }),
    },
  });
  return context;
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

/** Code.js loaded, then the extra cost of the first heavy call: loadServer_() reads and evaluates Server.html. */
function serverLoad(build: Build): number {
  loadNumber++;
  const context = freshContext(build.server);
  runCode(build.code, context);
  const start = performance.now();
  const server = vm.runInContext('loadServer_()', context);
  const elapsed = performance.now() - start;
  if (typeof server?.enrichSelection !== 'function') throw new Error('Server.html gave no enrichSelection');
  return elapsed;
}

/** Code.js and the server bundle, as the first heavy call of an execution pays them; ms. */
function heavyCall(build: Build): number {
  loadNumber++;
  const context = freshContext(build.server);
  const start = performance.now();
  runCode(build.code, context);
  vm.runInContext('loadServer_()', context);
  return performance.now() - start;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function buildVariant(dir: string, minify: MinifyMode, layout: Layout): Promise<Build> {
  const out = join(dir, `${layout}-${minify}`);
  await buildAll(SANDBOX_BASE_URL, out, minify, layout);
  const server = layout === 'split' ? readFileSync(join(out, 'Server.html'), 'utf8') : '';
  return { code: readFileSync(join(out, 'Code.js'), 'utf8'), server };
}

async function main(): Promise<void> {
  const { loads, maxSeconds } = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'coldload-'));
  let builds: Build[];
  try {
    builds = [
      await buildVariant(dir, 'none', 'single'),
      await buildVariant(dir, 'names', 'single'),
      await buildVariant(dir, 'names', 'split'),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const [old, single, split] = builds;
  const bytes = (text: string) => Buffer.byteLength(text);
  const variants: Variant[] = [
    { label: 'old: one bundle, unminified', bytes: bytes(old.code), load: () => codeLoad(old), timesMs: [] },
    { label: 'one bundle, minified', bytes: bytes(single.code), load: () => codeLoad(single), timesMs: [] },
    {
      label: 'new: light Code.js (shipped)',
      bytes: bytes(split.code),
      load: () => codeLoad(split),
      timesMs: [],
    },
    {
      label: '+ Server.html (1st heavy call)',
      bytes: bytes(split.server),
      load: () => serverLoad(split),
      timesMs: [],
    },
    {
      label: 'heavy call: Code.js + Server',
      bytes: bytes(split.code) + bytes(split.server),
      load: () => heavyCall(split),
      timesMs: [],
    },
  ];
  for (const variant of variants) for (let i = 0; i < WARM_UP_LOADS; i++) variant.load();
  const deadline = performance.now() + maxSeconds * 1000;
  for (let i = 0; i < loads && performance.now() < deadline; i++)
    for (const variant of variants) variant.timesMs.push(variant.load());

  const median = (variant: Variant) => quantile(variant.timesMs, 0.5);
  const [oldLoad, , newLoad, serverOnly, heavy] = variants;
  console.log(`Cold load in a fresh vm context, ${oldLoad.timesMs.length} loads of each, taking turns:\n`);
  console.log(
    `${'what is loaded'.padEnd(34)}${'bytes'.padStart(8)}${'median ms'.padStart(11)}${'p90 ms'.padStart(9)}` +
      `${'old / this'.padStart(12)}`,
  );
  for (const variant of variants) {
    console.log(
      `${variant.label.padEnd(34)}${String(variant.bytes).padStart(8)}` +
        `${median(variant).toFixed(3).padStart(11)}${quantile(variant.timesMs, 0.9).toFixed(3).padStart(9)}` +
        `${`${(median(oldLoad) / median(variant)).toFixed(2)}x`.padStart(12)}`,
    );
  }
  console.log(
    `\nA =FINDEMAIL call loads ${(100 * (newLoad.bytes / oldLoad.bytes)).toFixed(0)} % of the old bytes; its cold ` +
      `load is ${(median(oldLoad) / median(newLoad)).toFixed(2)}x as fast as the old one (ratio of medians).\n` +
      `The first heavy call of an execution pays ${median(serverOnly).toFixed(3)} ms more for Server.html ` +
      `(${(median(serverOnly) / median(newLoad)).toFixed(2)}x the light load); Code.js and Server.html together ` +
      `take ${(median(heavy) / median(oldLoad)).toFixed(2)}x the old single bundle's load, plus the file read.`,
  );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
