/**
 * `npm run bench:coldload`: the cold load of dist/Code.js, which every =FINDEMAIL call pays before it runs, for the
 * old unminified bundle (`scripts/build.ts --minify none`) and the shipped one (minified, names kept), with the
 * minified one without names beside them, in one run. Each load compiles and runs the whole file in a fresh vm
 * context, as Apps Script starts a custom function's execution; a unique trailing comment keeps V8's compilation
 * cache from serving an earlier load. The bundles take turns, load by load, so drift on a busy machine hits all.
 *
 *   npx tsx bench/coldload.ts [--loads=N] [--max-seconds=S]   N loads of each bundle (default 200, at most 2,000),
 *                                                              stopping early after S seconds (default 60)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import vm from 'node:vm';
import { buildAll, type MinifyMode, SANDBOX_BASE_URL } from '../scripts/build';

const MAX_LOADS = 2_000;
const WARM_UP_LOADS = 10;

interface Bundle {
  label: string;
  mode: MinifyMode;
  code: string;
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

/** Compiles and runs the bundle in a new context with no Apps Script service (loading touches none); ms. */
function coldLoad(code: string): number {
  const context = vm.createContext({});
  const source = `${code}\n// cold load ${++loadNumber}\n`;
  const start = performance.now();
  new vm.Script(source, { filename: 'Code.js' }).runInContext(context);
  const elapsed = performance.now() - start;
  if (typeof context.FINDEMAIL !== 'function') throw new Error('the bundle declared no FINDEMAIL');
  return elapsed;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function buildBundles(): Promise<Bundle[]> {
  const variants: Array<Pick<Bundle, 'label' | 'mode'>> = [
    { label: 'unminified (old build)', mode: 'none' },
    { label: 'minified, names kept (shipped)', mode: 'names' },
    { label: 'minified, names mangled', mode: 'full' },
  ];
  const dir = mkdtempSync(join(tmpdir(), 'coldload-'));
  try {
    const bundles: Bundle[] = [];
    for (const variant of variants) {
      const out = join(dir, variant.mode);
      await buildAll(SANDBOX_BASE_URL, out, variant.mode);
      bundles.push({ ...variant, code: readFileSync(join(out, 'Code.js'), 'utf8'), timesMs: [] });
    }
    return bundles;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { loads, maxSeconds } = parseOptions(process.argv.slice(2));
  const bundles = await buildBundles();
  for (const bundle of bundles) for (let i = 0; i < WARM_UP_LOADS; i++) coldLoad(bundle.code);
  const deadline = performance.now() + maxSeconds * 1000;
  for (let i = 0; i < loads && performance.now() < deadline; i++)
    for (const bundle of bundles) bundle.timesMs.push(coldLoad(bundle.code));

  const [old, shipped] = bundles;
  const median = (bundle: Bundle) => quantile(bundle.timesMs, 0.5);
  console.log(
    `Cold load of dist/Code.js in a fresh vm context, ${old.timesMs.length} loads of each bundle:\n`,
  );
  console.log(
    `${'bundle'.padEnd(32)}${'bytes'.padStart(8)}${'median ms'.padStart(11)}${'p90 ms'.padStart(9)}${'vs old'.padStart(9)}`,
  );
  for (const bundle of bundles) {
    const ratio = median(old) / median(bundle);
    console.log(
      `${bundle.label.padEnd(32)}${String(Buffer.byteLength(bundle.code)).padStart(8)}` +
        `${median(bundle).toFixed(3).padStart(11)}${quantile(bundle.timesMs, 0.9).toFixed(3).padStart(9)}` +
        `${`${ratio.toFixed(2)}x`.padStart(9)}`,
    );
  }
  const sizeRatio = Buffer.byteLength(shipped.code) / Buffer.byteLength(old.code);
  console.log(
    `\nShipped bundle: ${(sizeRatio * 100).toFixed(0)} % of the old size, cold load ` +
      `${(median(old) / median(shipped)).toFixed(2)}x as fast as the old one (ratio of medians).`,
  );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
