/**
 * The build output as `clasp push` sends it: a top-level declaration with its JSDoc for every entry point of
 * src/main.ts; the light bundle (FINDEMAIL and the simple triggers) in Code.js, under 60 KB, and the rest in
 * Server.html, loaded at most once per execution by the entry points that need it; a manifest with the V8 runtime, the scopes the code needs and no more, and a urlFetchWhitelist
 * derived from an https API_BASE_URL; a base URL that is neither https nor loopback is refused.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import ts from 'typescript';
import { customFunctionNames, DIST_DIR } from '../../emulator';
import { AWAIT_SCRIPT_MS, cleanUp, guardRecords, ROOT, runScript, type ScriptRun, tempDir } from './scripts';

interface Export {
  name: string;
  params: string[];
  jsDoc: string;
  light: boolean;
}

/** What custom functions and simple triggers need: the light bundle in Code.js (src/formulaMain.ts). */
const LIGHT = ['FINDEMAIL', 'onEdit', 'onInstall', 'onOpen'];

/** The exported functions of src/main.ts with their JSDoc, read independently of scripts/build.ts. */
function mainExports(): Export[] {
  const file = join(ROOT, 'src', 'main.ts');
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2020, true);
  return source.statements.filter(ts.isFunctionDeclaration).flatMap((fn) => {
    if (!fn.name || !fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return [];
    const jsDoc = ts.getJSDocCommentsAndTags(fn).find(ts.isJSDoc);
    return [
      {
        name: fn.name.text,
        params: fn.parameters.map((p) => p.name.getText(source)),
        jsDoc: jsDoc ? text.slice(jsDoc.getStart(source), jsDoc.getEnd()) : '',
        light: LIGHT.includes(fn.name.text),
      },
    ];
  });
}

/** Loaded on every custom-function call (issue 12): the bound dist/Code.js must stay under. */
const MAX_BUNDLE_BYTES = 60_000;

/** Code.js in a fresh context whose HtmlService serves dist/'s HTML files and records the names asked for. */
function loadCode(code: string, dir = DIST_DIR) {
  const filesRead: string[] = [];
  const context = vm.createContext({
    HtmlService: {
      createHtmlOutputFromFile(name: string) {
        filesRead.push(name);
        const content = readFileSync(join(dir, `${name}.html`), 'utf8');
        return { getContent: () => content };
      },
    },
  });
  vm.runInContext(code, context, { filename: 'Code.js' });
  return { context, filesRead };
}

/** The names of a stack trace's frames in one file. */
function frameNames(stack: string, file: string): string[] {
  const pattern = new RegExp(`^\\s+at (?:Object\\.)?([\\w$]+) \\(${file.replace('.', '\\.')}:`, 'gm');
  return [...stack.matchAll(pattern)].map((m) => m[1]);
}

/** Whether some file of src/ (not the sidebar) declares a function, method or const of that name. */
function srcDeclares(name: string): boolean {
  const pattern = new RegExp(
    `\\b(function\\s+${name}\\b|(const|let)\\s+${name}\\s*=|^\\s+${name}\\s*\\()`,
    'm',
  );
  const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && !file.startsWith('sidebar'),
  );
  return files.some((file) => pattern.test(readFileSync(join(ROOT, 'src', file), 'utf8')));
}

interface HelpCard {
  description: string;
  params: Array<{ name: string; text: string }>;
}

/** The parts of a top-level function's JSDoc in the built bundle that Sheets' formula help shows. */
function helpCard(code: string, name: string): HelpCard {
  const source = ts.createSourceFile('Code.js', code, ts.ScriptTarget.ES2020, true, ts.ScriptKind.JS);
  const fn = source.statements.find((s) => ts.isFunctionDeclaration(s) && s.name?.text === name);
  const jsDoc = fn && ts.getJSDocCommentsAndTags(fn).find(ts.isJSDoc);
  if (!jsDoc) throw new Error(`no JSDoc on function ${name} in the bundle`);
  const text = (comment: ts.JSDoc['comment']) =>
    (typeof comment === 'string' ? comment : (ts.getTextOfJSDocComment(comment) ?? ''))
      .replace(/\s+/g, ' ')
      .trim();
  const tags: readonly ts.JSDocTag[] = jsDoc.tags ?? [];
  return {
    description: text(jsDoc.comment),
    params: tags
      .filter((tag): tag is ts.JSDocParameterTag => ts.isJSDocParameterTag(tag))
      .map((tag) => ({
        name: tag.name.getText(source),
        text: text(tag.comment),
      })),
  };
}

// Started at once when the file loads: each tsx start takes seconds.
const guardLog = join(tempDir(), 'refused.txt');
const httpsOut = tempDir();
const refusedOut = join(tempDir(), 'never');
const httpsBuild = runScript('build.ts', ['--out', httpsOut], {
  guardLog,
  env: { API_BASE_URL: 'https://API.example.com/api/v1' },
});
const refusedBuild = runScript('build.ts', ['--out', refusedOut], {
  guardLog,
  env: { API_BASE_URL: 'http://api.example.com/api/v1' },
});
// deploy.ts starts clasp once its checks pass: under the guard with noSpawn, starting any process is refused and
// recorded, so a regressed refusal can never reach clasp or the network.
const deployGuardLog = join(tempDir(), 'deploy-refused.txt');
const deploy = (base: string) =>
  runScript('deploy.ts', [], { guardLog: deployGuardLog, noSpawn: true, env: { API_BASE_URL: base } });
const deployWithout = deploy('');
const deployLoopback = deploy('http://127.0.0.1:8787/api/v1/');

afterAll(cleanUp);

/** Scopes by the services the bundle calls (https://developers.google.com/apps-script/concepts/scopes). */
function requiredScopes(code: string): string[] {
  const scope = (name: string) => `https://www.googleapis.com/auth/${name}`;
  const needs: Array<[RegExp, string]> = [
    [/\bSpreadsheetApp\.(getActive\w*|getUi)\b/, scope('spreadsheets.currentonly')],
    [/\bSpreadsheetApp\.(openById|openByUrl|open|create)\b/, scope('spreadsheets')],
    [/\bSpreadsheetApp\.getUi\b|\bHtmlService\b/, scope('script.container.ui')],
    [/\bUrlFetchApp\b/, scope('script.external_request')],
    [
      /\bScriptApp\.(newTrigger|getProjectTriggers|getUserTriggers|deleteTrigger)\b/,
      scope('script.scriptapp'),
    ],
    [/\bSession\.get(Active|Effective)User\b/, scope('userinfo.email')],
    [/\bDriveApp\b/, scope('drive')],
    [/\b(GmailApp|MailApp)\b/, scope('script.send_mail')],
  ];
  return needs.filter(([pattern]) => pattern.test(code)).map(([, s]) => s);
}

describe('dist/Code.js (the default build)', () => {
  const code = readFileSync(join(DIST_DIR, 'Code.js'), 'utf8');
  const exports = mainExports();

  it('src/main.ts exports the entry points', () => {
    expect(exports.map((e) => e.name)).toEqual(
      expect.arrayContaining(['FINDEMAIL', 'onOpen', 'onInstall', 'checkApiKey', 'enrichSelection']),
    );
  });

  it.each(mainExports().map((e) => [e.name, e] as const))(
    '%s is a readable top-level function declaration carrying its JSDoc, as written in src/main.ts',
    (name, entry) => {
      const params = entry.params.join(', ');
      const target = entry.light ? 'ProfileEmailFinder' : 'loadServer_()';
      const stub = `function ${name}(${params}) {\n  return ${target}.${name}(${params});\n}\n`;
      expect(code).toContain(`${entry.jsDoc}\n${stub}`);
      expect(entry.jsDoc).toMatch(/^\/\*\*[\s\S]*\*\/$/);
    },
  );

  it('is at most 60 KB (it is loaded on every custom-function call): the light bundle, minified', () => {
    expect(Buffer.byteLength(code, 'utf8')).toBeLessThanOrEqual(MAX_BUNDLE_BYTES);
    const body = code.slice(code.indexOf('var ProfileEmailFinder='));
    expect(body.length).toBeGreaterThan(0);
    // Minified with short lines: many statements per line, yet a line:column of a stack trace stays readable.
    const lines = body.split('\n');
    expect(body.length / lines.length).toBeGreaterThan(80);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(1000);
  });

  it("keeps src/'s function names, so a stack trace in the execution log says where", () => {
    // FINDEMAIL without Apps Script's services throws from deep inside the bundle.
    const context = vm.createContext({});
    vm.runInContext(code, context, { filename: 'Code.js' });
    let stack = '';
    try {
      context.FINDEMAIL('https://www.network.com/in/jane-doe');
    } catch (error) {
      stack = (error as Error).stack ?? '';
    }
    const inner = frameNames(stack, 'Code.js').filter((name) => name !== 'FINDEMAIL');
    expect(inner.length).toBeGreaterThanOrEqual(2);
    for (const name of inner) expect(srcDeclares(name)).toBe(true);
  });

  it('holds only the light entry points in its bundle; Server.html holds them all', () => {
    const { context, filesRead } = loadCode(code);
    expect(Object.keys(context.ProfileEmailFinder).sort()).toEqual([...LIGHT].sort());
    expect(filesRead).toEqual([]);
    const server = context.loadServer_();
    expect(Object.keys(server).sort()).toEqual(exports.map((e) => e.name).sort());
    // What only the other entry points need is not in Code.js (names are kept, as strings, in both bundles).
    const serverFile = readFileSync(join(DIST_DIR, 'Server.html'), 'utf8');
    for (const name of ['planFor', 'parseRunRequest', 'startFromMenu', 'processSlice', 'showSidebar']) {
      expect(srcDeclares(name)).toBe(true);
      expect(serverFile).toContain(`"${name}"`);
      expect(code).not.toContain(`"${name}"`);
    }
  });

  it('loads Server.html on the first heavy call only, and never for a light entry point', () => {
    const { context, filesRead } = loadCode(code);
    // Without Apps Script's services each entry point throws once it reaches one; loading comes before.
    const attempt = (name: string, ...args: unknown[]) => {
      try {
        context[name](...args);
        return '';
      } catch (error) {
        return (error as Error).stack ?? '';
      }
    };
    attempt('FINDEMAIL', 'https://www.network.com/in/jane-doe');
    attempt('onEdit', {});
    expect(filesRead).toEqual([]);
    const stack = attempt('getSidebarState');
    expect(filesRead).toEqual(['Server']);
    // A frame in the server bundle is named by its sourceURL, with src/'s function names.
    const inner = frameNames(stack, 'Server.js');
    expect(inner.length).toBeGreaterThanOrEqual(2);
    for (const name of inner.filter((n) => n !== 'getSidebarState')) expect(srcDeclares(name)).toBe(true);
    attempt('getEnrichmentProgress');
    attempt('getRunHistory');
    expect(filesRead).toEqual(['Server']);
  });

  it('FINDEMAIL is the custom function, with @customfunction and its parameters documented', () => {
    const findEmail = exports.find((e) => e.name === 'FINDEMAIL');
    expect(findEmail?.jsDoc).toContain('@customfunction');
    expect(findEmail?.jsDoc).toMatch(/@param \{[^}]+\} url /);
    expect(findEmail?.jsDoc).toMatch(/@param \{[^}]+\} fields /);
    expect(customFunctionNames(code)).toEqual(['FINDEMAIL']);
  });

  it("FINDEMAIL's help card, as Sheets shows it, says fields is optional and lists the outcomes", () => {
    // Sheets shows the description and each @param's name and text; it ignores [optional] and the @return text.
    const card = helpCard(code, 'FINDEMAIL');
    expect(card.params.map((p) => p.name)).toEqual(['url', 'fields']);
    expect(card.description).toMatch(/\bfields, is optional\b/);
    expect(card.params[1].text).toMatch(/^Optional\. /);
    for (const outcome of ['NOT_FOUND', 'UNPROCESSABLE: ', 'INVALID_URL: ', 'ERROR: '])
      expect(card.description).toContain(outcome);
    expect(card.description).toContain('the address');
  });

  it('every declaration is a global of the script and delegates into its bundle', () => {
    const context = vm.createContext({});
    vm.runInContext(code, context);
    for (const entry of exports) expect(typeof context[entry.name]).toBe('function');
    const globals = Object.keys(context).filter((name) => typeof context[name] === 'function');
    // loadServer_ is private in Apps Script (trailing underscore): no menu, formula or google.script.run calls it.
    expect(globals.sort()).toEqual([...exports.map((e) => e.name), 'loadServer_'].sort());
    // Each declaration hands its arguments to its bundle's export of the same name.
    const calls: unknown[][] = [];
    const bundle = (label: string) =>
      new Proxy(
        {},
        {
          get:
            (_target, name) =>
            (...args: unknown[]) =>
              calls.push([label, name, ...args]) && `from ${String(name)}`,
        },
      );
    context.ProfileEmailFinder = bundle('light');
    context.ProfileEmailFinderServer = bundle('server');
    for (const entry of exports) {
      const args = entry.params.map((_, i) => `arg${i}`);
      expect(context[entry.name](...args)).toBe(`from ${entry.name}`);
      expect(calls.pop()).toEqual([entry.light ? 'light' : 'server', entry.name, ...args]);
    }
  });

  it('Server.html is exactly the server bundle: JavaScript with no scriptlet marker, named Server.js', () => {
    const server = readFileSync(join(DIST_DIR, 'Server.html'), 'utf8');
    expect(server).not.toContain('<?');
    expect(server).toMatch(/^\/\/ .*\n/);
    expect(server.endsWith('ProfileEmailFinderServer;\n//# sourceURL=Server.js\n')).toBe(true);
    expect(() => new vm.Script(server)).not.toThrow();
    // Evaluated in the global scope it gives the exports, though the bundle is strict code (its `var` stays inside).
    const context = vm.createContext({});
    const exported = vm.runInContext(`(0, eval)(${JSON.stringify(server)})`, context);
    expect(Object.keys(exported).sort()).toEqual(exports.map((e) => e.name).sort());
  });

  it('the loopback sandbox build has no urlFetchWhitelist (Apps Script allows https prefixes only)', () => {
    const manifest = JSON.parse(readFileSync(join(DIST_DIR, 'appsscript.json'), 'utf8'));
    expect(manifest.urlFetchWhitelist).toBeUndefined();
    expect(existsSync(join(DIST_DIR, 'Sidebar.html'))).toBe(true);
    expect(existsSync(join(DIST_DIR, 'Server.html'))).toBe(true);
  });
});

describe('a build for an https API_BASE_URL', () => {
  let out = '';
  let build: ScriptRun;

  beforeAll(async () => {
    out = httpsOut;
    build = await httpsBuild;
  }, AWAIT_SCRIPT_MS);

  it('writes Code.js, Server.html, Sidebar.html and appsscript.json into the folder given', () => {
    expect(build.out).toContain(`Built ${out}/ for https://API.example.com/api/v1/`);
    expect(build.status).toBe(0);
    for (const file of ['Code.js', 'Server.html', 'Sidebar.html', 'appsscript.json']) {
      expect(existsSync(join(out, file))).toBe(true);
    }
  });

  it('bakes the base URL (with its trailing slash) into both bundles', () => {
    for (const file of ['Code.js', 'Server.html']) {
      const code = readFileSync(join(out, file), 'utf8');
      expect(code).toContain('"https://API.example.com/api/v1/"');
      expect(code).not.toContain('127.0.0.1:8787');
    }
  });

  it('manifest: V8, exception logging, the whitelist of the base host, exactly the scopes the code needs', () => {
    const manifest = JSON.parse(readFileSync(join(out, 'appsscript.json'), 'utf8'));
    expect(manifest.runtimeVersion).toBe('V8');
    expect(manifest.exceptionLogging).toBe('STACKDRIVER');
    expect(manifest.urlFetchWhitelist).toEqual(['https://api.example.com/']);
    const code = ['Code.js', 'Server.html'].map((file) => readFileSync(join(out, file), 'utf8')).join('\n');
    expect([...manifest.oauthScopes].sort()).toEqual(requiredScopes(code).sort());
    expect(manifest.oauthScopes).not.toContain('https://www.googleapis.com/auth/spreadsheets');
  });
});

describe('refusals', () => {
  it(
    'build: a non-https, non-loopback base is refused with a clear message and nothing is written',
    async () => {
      const result = await refusedBuild;
      expect(result.status).toBe(1);
      expect(result.out).toContain(
        'Build failed: The add-on is misconfigured: the service address "http://api.example.com/api/v1" must be an https:// URL (plain http only on 127.0.0.1 or localhost).',
      );
      expect(existsSync(refusedOut)).toBe(false);
    },
    AWAIT_SCRIPT_MS,
  );

  it(
    'deploy: refuses without API_BASE_URL, and with a loopback one',
    async () => {
      const missing = await deployWithout;
      expect(missing.status).toBe(1);
      expect(missing.out).toContain('Not deployed: set API_BASE_URL');
      const loopback = await deployLoopback;
      expect(loopback.status).toBe(1);
      expect(loopback.out).toContain('Not deployed: a deployed add-on must call the service over https.');
      expect(guardRecords(deployGuardLog)).toEqual([]);
    },
    AWAIT_SCRIPT_MS,
  );
});
