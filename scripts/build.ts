/**
 * Builds dist/ exactly as `clasp push` sends it: Code.js, Server.html, Sidebar.html, appsscript.json.
 * API_BASE_URL (environment) sets the service's base URL; without it the build targets the local sandbox.
 * `--minify none` writes the bundles' bodies unminified (for reading them).
 *
 * Two bundles (issue 12): Apps Script loads every script file of the project on every execution, and a
 * custom-function call is an execution, so each =FINDEMAIL cell pays for loading all the code there is.
 * - Code.js: the readable top-level stubs of every entry point of src/main.ts, then the light bundle built from
 *   src/formulaMain.ts: FINDEMAIL, onOpen, onInstall, onEdit and what they import.
 * - Server.html: the whole of src/main.ts as JavaScript in an HTML file, which Apps Script does not load by itself.
 *   The other entry points' stubs call loadServer_(), which reads it with HtmlService and evaluates it, at most
 *   once per execution.
 * No execution mixes the two bundles: a light entry point does all its work in the light bundle and never loads the
 * server; a heavy one calls only into the server bundle. So the modules both bundles hold (the adapters, core/)
 * never share state, and holding them twice is harmless.
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
/** What a (split) build writes and clasp pushes; .claspignore lets exactly these through. */
export const BUILT_FILES = ['Code.js', 'Server.html', 'Sidebar.html', 'appsscript.json'] as const;

/** The light bundle's global (Code.js) and the server bundle's (Server.html). */
const LIGHT_GLOBAL = 'ProfileEmailFinder';
const SERVER_GLOBAL = 'ProfileEmailFinderServer';
/** dist/Server.html, read by name with HtmlService.createHtmlOutputFromFile. */
const SERVER_FILE = 'Server';
/** The name stack traces show for frames in the server bundle (a sourceURL comment). */
const SERVER_SOURCE_URL = 'Server.js';
const MAIN_ENTRY = join(root, 'src/main.ts');
const LIGHT_ENTRY = join(root, 'src/formulaMain.ts');

/**
 * How the bundles' bodies (the IIFEs) are minified; the top-level stubs and their JSDoc are always written as they
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

/**
 * `split` (shipped): Code.js with the light bundle, Server.html with the rest. `single`: the build before issue 12,
 * every entry point in one bundle in Code.js (the cold-load bench's baseline).
 */
export type Layout = 'split' | 'single';

export interface EntryPoint {
  name: string;
  params: string[];
  jsDoc: string;
  /** Runs in the light bundle (src/formulaMain.ts exports it); otherwise in the server bundle. */
  light: boolean;
}

/** The names src/formulaMain.ts exports (`export { A, B } from './main'`). */
export function readLightNames(file = LIGHT_ENTRY): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2020, true);
  return source.statements.flatMap((statement) =>
    ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)
      ? statement.exportClause.elements.map((element) => element.name.text)
      : [],
  );
}

/**
 * Every exported function of src/main.ts, with its parameters and JSDoc, read with the TypeScript parser, and
 * whether it is light. A light name that src/main.ts does not export is refused.
 */
export function readEntryPoints(file = MAIN_ENTRY, lightFile = LIGHT_ENTRY): EntryPoint[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2020, true);
  const lightNames = readLightNames(lightFile);
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
      light: lightNames.includes(statement.name.text),
    });
  }
  const unknown = lightNames.filter((name) => !entries.some((entry) => entry.name === name));
  if (unknown.length > 0)
    throw new Error(`${lightFile} exports ${unknown.join(', ')}: not an entry point of ${file}`);
  return entries;
}

function wrapper(entry: EntryPoint, layout: Layout): string {
  const params = entry.params.join(', ');
  const target = layout === 'single' || entry.light ? LIGHT_GLOBAL : 'loadServer_()';
  return `${entry.jsDoc}\nfunction ${entry.name}(${params}) {\n  return ${target}.${entry.name}(${params});\n}\n`;
}

/**
 * Written into Code.js (split layout) before the stubs. The trailing underscore makes the function private in Apps
 * Script: neither google.script.run, a menu nor a formula can call it.
 */
const SERVER_LOADER = `/**
 * The server bundle: every entry point but FINDEMAIL and the simple triggers runs there. It is JavaScript kept in
 * the HTML file ${SERVER_FILE}.html, because Apps Script loads every script file of the project on every execution,
 * each =FINDEMAIL cell included, and HTML files only when asked for. Read and evaluated (indirect eval: in the
 * global scope) at most once per execution, by the entry points below that need it.
 */
var ${SERVER_GLOBAL};
function loadServer_() {
  if (${SERVER_GLOBAL} === undefined)
    ${SERVER_GLOBAL} = (0, eval)(HtmlService.createHtmlOutputFromFile('${SERVER_FILE}').getContent());
  return ${SERVER_GLOBAL};
}
`;

/**
 * The scopes the bundle needs, and no more (test/bundle/build.test.ts checks them against the code):
 * spreadsheets.currentonly (the open spreadsheet), script.container.ui (menu, sidebar, dialogs),
 * script.external_request (UrlFetchApp), userinfo.email (Session.getActiveUser: the starter's address shown to
 * other editors). No script.scriptapp: the add-on creates no triggers; the sidebar drives a run (issue 11).
 */
export const OAUTH_SCOPES = [
  'spreadsheets.currentonly',
  'script.container.ui',
  'script.external_request',
  'userinfo.email',
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

/** One IIFE bundle of `entry` whose exports become the global `globalName`. */
async function bundleOf(
  entry: string,
  globalName: string,
  defines: Record<string, string>,
  minify: MinifyMode,
): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    globalName,
    target: 'es2020',
    platform: 'neutral',
    write: false,
    legalComments: 'none',
    define: defines,
    ...minifyOptions(minify),
  });
  return result.outputFiles[0].text;
}

/**
 * Server.html's content: exactly the JavaScript that loadServer_ evaluates. It ends with the bundle's global as an
 * expression, so the eval returns the exports even though the bundle starts with "use strict" (strict eval code
 * keeps its `var` to itself). createHtmlOutputFromFile evaluates no
 * scriptlets and getContent returns the file as written, but a `<?` would make the file a template the day someone
 * reads it with createTemplateFromFile, so the build refuses one rather than escape JavaScript it cannot parse.
 */
function serverFile(header: string, bundle: string): string {
  if (bundle.includes('<?'))
    throw new Error(`The server bundle contains "<?", a scriptlet marker in an HTML file.`);
  return `${header}${bundle}${SERVER_GLOBAL};\n//# sourceURL=${SERVER_SOURCE_URL}\n`;
}

/**
 * Builds into `outDir` (default dist/, which is emptied first; another folder only gets the build's files).
 * Refuses a base URL that is neither https nor loopback http, before writing anything.
 */
export async function buildAll(
  baseUrl = process.env.API_BASE_URL || SANDBOX_BASE_URL,
  outDir = dist,
  minify: MinifyMode = 'names',
  layout: Layout = 'split',
): Promise<string> {
  const endpoint = resolveEndpoint(baseUrl);
  if (!endpoint.ok) throw new Error(endpoint.message);
  // The bundle knows the manifest's allowlist, so an API_BASE_URL script property outside it is refused at once.
  const allowlist = allowlistFor(endpoint.base);
  const defines = {
    __API_BASE_URL__: JSON.stringify(endpoint.base),
    __URL_ALLOWLIST__: JSON.stringify(allowlist),
  };
  const entries = readEntryPoints();
  const split = layout === 'split';
  const [light, server] = await Promise.all([
    bundleOf(split ? LIGHT_ENTRY : MAIN_ENTRY, LIGHT_GLOBAL, defines, minify),
    split ? bundleOf(MAIN_ENTRY, SERVER_GLOBAL, defines, minify) : Promise.resolve(''),
  ]);
  const body =
    minify === 'none' ? 'unminified' : `minified (${minify === 'names' ? 'names kept' : 'names mangled'})`;
  const origin =
    '// Profile Email Finder for Sheets. Built from src/ by scripts/build.ts: do not edit.\n' +
    `// Service base URL at build time: ${endpoint.base}\n`;
  const lightNames = entries.filter((entry) => entry.light).map((entry) => entry.name);
  const header = split
    ? `${origin}// ${lightNames.join(', ')} call into the light bundle at the end of this file, ${body}; the other\n` +
      `// entry points into the server bundle (${SERVER_FILE}.html), loaded by loadServer_. Read src/ for the source.\n\n`
    : `${origin}// The entry points below call into the bundle after them, ${body}; read src/ for the source.\n\n`;
  const wrappers = entries.map((entry) => wrapper(entry, layout)).join('\n');
  const sidebar = await buildSidebar();
  const target = resolve(outDir);
  if (target === dist) rmSync(dist, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  writeFileSync(
    join(target, 'Code.js'),
    `${header}${split ? `${SERVER_LOADER}\n` : ''}${wrappers}\n${light}`,
  );
  if (split) {
    const serverHeader =
      `${origin}// The server bundle (src/main.ts), ${body}: JavaScript, not HTML. Code.js's loadServer_ reads this\n` +
      '// file with HtmlService and evaluates it; Apps Script never loads an HTML file by itself.\n';
    writeFileSync(join(target, `${SERVER_FILE}.html`), serverFile(serverHeader, server));
  }
  writeFileSync(join(target, 'Sidebar.html'), sidebar);
  writeFileSync(join(target, 'appsscript.json'), manifest(allowlist));
  return endpoint.base;
}

/** `tsx scripts/build.ts [--out DIR] [--minify names|full|none]` */
function buildArguments(argv: string[]): { outDir: string; minify: MinifyMode } {
  const { values } = parseArgs({
    args: argv,
    options: { out: { type: 'string', default: dist }, minify: { type: 'string', default: 'names' } },
  });
  const minify = values.minify as MinifyMode;
  if (!MINIFY_MODES.includes(minify)) throw new Error(`--minify takes ${MINIFY_MODES.join(', ')}`);
  return { outDir: values.out, minify };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  Promise.resolve()
    .then(() => {
      const { outDir, minify } = buildArguments(process.argv.slice(2));
      return buildAll(undefined, outDir, minify).then((base) => ({ base, outDir }));
    })
    .then(
      ({ base, outDir }) =>
        console.log(`Built ${resolve(outDir) === dist ? 'dist' : resolve(outDir)}/ for ${base}`),
      (error) => {
        console.error(`Build failed: ${error instanceof Error ? error.message : error}`);
        process.exit(1);
      },
    );
}
