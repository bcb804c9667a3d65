/**
 * Builds dist/ exactly as `clasp push` sends it: Code.js, Sidebar.html, appsscript.json.
 * API_BASE_URL (environment) sets the service's base URL; without it the build targets the local sandbox.
 * PRIVACY_POLICY_URL (environment), optional: where docs/privacy.md is published, linked from the Help dialog.
 * `--minify none` writes the bundle's body unminified (for reading it).
 *
 * Code.js is the whole add-on: the readable top-level stubs of every entry point of src/main.ts, then one bundle of
 * src/main.ts. No code lives in an HTML file: HtmlService is reported to remove the text after `//` inside
 * template literals of HTML files (emulator/README.md, HtmlService), so code read from one and
 * evaluated could break at run time.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import ts from 'typescript';
import { allowlistFor, resolveEndpoint } from '../src/core/config';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
export const SANDBOX_BASE_URL = 'http://127.0.0.1:8787/api/v1/';
/** What a build writes and clasp pushes; .claspignore lets exactly these through. */
export const BUILT_FILES = ['Code.js', 'Sidebar.html', 'appsscript.json'] as const;

/** The bundle's global: the stubs call into it. */
const BUNDLE_GLOBAL = 'ProfileEmailFinder';
const MAIN_ENTRY = join(root, 'src/main.ts');

/**
 * How the bundle's body (the IIFE) is minified; the top-level stubs and their JSDoc are always written as they
 * are. Code.js is loaded on every custom-function call, so it ships minified: `names` keeps function and class names
 * (esbuild keepNames), so stack traces in the execution log still say where (about 3 KB more than `full`), and
 * lines stay short so a line:column in a stack trace still points somewhere readable.
 */
export type MinifyMode = 'names' | 'full' | 'none';
const MINIFY_MODES: readonly MinifyMode[] = ['names', 'full', 'none'];
const MINIFY_LINE_LIMIT = 120;

function minifyOptions(mode: MinifyMode) {
  if (mode === 'none') return {};
  return { minify: true, keepNames: mode === 'names', lineLimit: MINIFY_LINE_LIMIT };
}

export interface EntryPoint {
  name: string;
  params: string[];
  jsDoc: string;
}

/** Every exported function of src/main.ts, with its parameters and JSDoc, read with the TypeScript parser. */
export function readEntryPoints(file = MAIN_ENTRY): EntryPoint[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2020, true);
  const entries: EntryPoint[] = [];
  for (const statement of source.statements) {
    if (!ts.isFunctionDeclaration(statement) || !statement.name) continue;
    const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    const comments = ts.getLeadingCommentRanges(text, statement.getFullStart()) ?? [];
    const docs = comments.filter((c) => text.slice(c.pos, c.pos + 3) === '/**');
    const last = docs[docs.length - 1];
    entries.push({
      name: statement.name.text,
      params: statement.parameters.map((p) => p.name.getText(source)),
      jsDoc: last ? text.slice(last.pos, last.end) : '',
    });
  }
  return entries;
}

function wrapper(entry: EntryPoint): string {
  const params = entry.params.join(', ');
  return `${entry.jsDoc}\nfunction ${entry.name}(${params}) {\n  return ${BUNDLE_GLOBAL}.${entry.name}(${params});\n}\n`;
}

/**
 * The scopes the bundle needs, and no more (test/bundle/build.test.ts checks them against the code):
 * spreadsheets.currentonly (the open spreadsheet), script.container.ui (menu, sidebar, dialogs),
 * script.external_request (UrlFetchApp), userinfo.email (Session.getActiveUser: the starter's address shown to
 * other editors), script.scriptapp (the watch's installable open, change and form-submit triggers: ScriptApp).
 * Never the full `spreadsheets`: a time-driven trigger would need it to open the spreadsheet, so the watch uses none.
 */
export const OAUTH_SCOPES = [
  'spreadsheets.currentonly',
  'script.container.ui',
  'script.external_request',
  'userinfo.email',
  'script.scriptapp',
].map((scope) => `https://www.googleapis.com/auth/${scope}`);

/** Apps Script allows only https prefixes in urlFetchWhitelist; the loopback sandbox needs none. */
function manifest(allowlist: string[] | null): string {
  const template = JSON.parse(readFileSync(join(root, 'appsscript.json'), 'utf8'));
  template.oauthScopes = OAUTH_SCOPES;
  if (allowlist) template.urlFetchWhitelist = allowlist;
  else delete template.urlFetchWhitelist;
  return `${JSON.stringify(template, null, 2)}\n`;
}

async function buildSidebar(): Promise<string> {
  const script = await build({
    entryPoints: [join(root, 'src/sidebar/sidebar.ts')],
    bundle: true,
    format: 'iife',
    target: 'es2019',
    write: false,
    minify: true,
    legalComments: 'none',
  });
  const js = script.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  const css = readFileSync(join(root, 'src/sidebar/sidebar.css'), 'utf8');
  const html = readFileSync(join(root, 'src/sidebar/Sidebar.html'), 'utf8');
  return html.replace('/* INLINE_CSS */', () => css).replace('/* INLINE_JS */', () => js);
}

/** One IIFE bundle of src/main.ts whose exports become the global BUNDLE_GLOBAL. */
async function bundleOf(defines: Record<string, string>, minify: MinifyMode): Promise<string> {
  const result = await build({
    entryPoints: [MAIN_ENTRY],
    bundle: true,
    format: 'iife',
    globalName: BUNDLE_GLOBAL,
    target: 'es2020',
    platform: 'neutral',
    write: false,
    legalComments: 'none',
    define: defines,
    ...minifyOptions(minify),
  });
  return result.outputFiles[0].text;
}

/** PRIVACY_POLICY_URL (environment): the published docs/privacy.md, linked from Help; https only, else none. */
function privacyUrl(raw: string | undefined): string {
  const url = (raw ?? '').trim();
  if (url === '') return '';
  if (!/^https:\/\/[^\s"'<>]+$/.test(url))
    throw new Error(`PRIVACY_POLICY_URL must be an https address: ${url}`);
  return url;
}

/**
 * Builds into `outDir` (default dist/, which is emptied first; another folder only gets the build's files).
 * Refuses a base URL that is neither https nor loopback http, before writing anything.
 */
export async function buildAll(
  baseUrl = process.env.API_BASE_URL || SANDBOX_BASE_URL,
  outDir = dist,
  minify: MinifyMode = 'names',
): Promise<string> {
  const endpoint = resolveEndpoint(baseUrl);
  if (!endpoint.ok) throw new Error(endpoint.message);
  // The bundle knows the manifest's allowlist, so an API_BASE_URL script property outside it is refused at once.
  const allowlist = allowlistFor(endpoint.base);
  const defines = {
    __API_BASE_URL__: JSON.stringify(endpoint.base),
    __URL_ALLOWLIST__: JSON.stringify(allowlist),
    __PRIVACY_URL__: JSON.stringify(privacyUrl(process.env.PRIVACY_POLICY_URL)),
  };
  const entries = readEntryPoints();
  const bundle = await bundleOf(defines, minify);
  const body =
    minify === 'none' ? 'unminified' : `minified (${minify === 'names' ? 'names kept' : 'names mangled'})`;
  const header =
    '// Profile Email Finder for Sheets. Built from src/ by scripts/build.ts: do not edit.\n' +
    `// Service base URL at build time: ${endpoint.base}\n` +
    `// The entry points below call into the bundle after them, ${body}; read src/ for the source.\n\n`;
  const wrappers = entries.map(wrapper).join('\n');
  const sidebar = await buildSidebar();
  const target = resolve(outDir);
  if (target === dist) rmSync(dist, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, 'Code.js'), `${header}${wrappers}\n${bundle}`);
  writeFileSync(join(target, 'Sidebar.html'), sidebar);
  writeFileSync(join(target, 'appsscript.json'), manifest(allowlist));
  return endpoint.base;
}

/**
 * `tsx scripts/build.ts [--out DIR] [--minify names|full|none] [--playground]`. `--playground` (npm start): the
 * playground gives the add-on its sandbox's address at start (script property API_BASE_URL), so the build's own
 * base URL is not named.
 */
function buildArguments(argv: string[]): { outDir: string; minify: MinifyMode; playground: boolean } {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: 'string', default: dist },
      minify: { type: 'string', default: 'names' },
      playground: { type: 'boolean', default: false },
    },
  });
  const minify = values.minify as MinifyMode;
  if (!MINIFY_MODES.includes(minify)) throw new Error(`--minify takes ${MINIFY_MODES.join(', ')}`);
  return { outDir: values.out, minify, playground: values.playground };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  Promise.resolve()
    .then(() => {
      const { outDir, minify, playground } = buildArguments(process.argv.slice(2));
      return buildAll(undefined, outDir, minify).then((base) => ({ base, outDir, playground }));
    })
    .then(
      ({ base, outDir, playground }) => {
        const folder = resolve(outDir) === dist ? 'dist' : resolve(outDir);
        console.log(
          playground
            ? `Built ${folder}/ for the playground, which points it at its own sandbox when it starts.`
            : `Built ${folder}/ for ${base}`,
        );
      },
      (error) => {
        console.error(`Build failed: ${error instanceof Error ? error.message : error}`);
        process.exit(1);
      },
    );
}
