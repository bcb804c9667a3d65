/**
 * The build output as `clasp push` sends it: one script file, Code.js, with a top-level declaration and its JSDoc for
 * every entry point of src/main.ts, then one bundle of src/main.ts (a loose size guard against dependency bloat);
 * a manifest with the V8 runtime, the scopes the code needs and no more, and a urlFetchWhitelist derived from an
 * https API_BASE_URL; a base URL that is neither https nor loopback is refused.
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
}

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
      },
    ];
  });
}

/**
 * A guard against dependency bloat, not a target: the whole add-on is about 85 KB (names kept); a library pulled
 * into src/ by mistake would pass this.
 */
const MAX_BUNDLE_BYTES = 200_000;

/** The names of a stack trace's frames in one file (a function called as a platform's member: "f [as member]"). */
function frameNames(stack: string, file: string): string[] {
  const pattern = new RegExp(
    `^\\s+at (?:Object\\.)?([\\w$]+)(?: \\[as [\\w$]+\\])? \\(${file.replace('.', '\\.')}:`,
    'gm',
  );
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
// What `npm start` runs: the playground gives the add-on its sandbox's address, so the line names no port.
const playgroundOut = tempDir();
const playgroundBuild = runScript('build.ts', ['--out', playgroundOut, '--playground'], { guardLog });
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
      const stub = `function ${name}(${params}) {\n  return ProfileEmailFinder.${name}(${params});\n}\n`;
      expect(code).toContain(`${entry.jsDoc}\n${stub}`);
      expect(entry.jsDoc).toMatch(/^\/\*\*[\s\S]*\*\/$/);
    },
  );

  it('is at most 200 KB (a guard against dependency bloat), minified', () => {
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

  it('holds every entry point in its one bundle, and nothing evaluates code from text', () => {
    const context = vm.createContext({});
    vm.runInContext(code, context, { filename: 'Code.js' });
    expect(Object.keys(context.ProfileEmailFinder).sort()).toEqual(exports.map((e) => e.name).sort());
    expect(code).not.toMatch(/\beval\s*\(|\bnew\s+Function\b|\bHtmlService\.createHtmlOutputFromFile\b/);
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

  it('every declaration is a global of the script and delegates into the bundle', () => {
    const context = vm.createContext({});
    vm.runInContext(code, context);
    for (const entry of exports) expect(typeof context[entry.name]).toBe('function');
    const globals = Object.keys(context).filter((name) => typeof context[name] === 'function');
    expect(globals.sort()).toEqual(exports.map((e) => e.name).sort());
    // Each declaration hands its arguments to the bundle's export of the same name.
    const calls: unknown[][] = [];
    context.ProfileEmailFinder = new Proxy(
      {},
      {
        get:
          (_target, name) =>
          (...args: unknown[]) =>
            calls.push([name, ...args]) && `from ${String(name)}`,
      },
    );
    for (const entry of exports) {
      const args = entry.params.map((_, i) => `arg${i}`);
      expect(context[entry.name](...args)).toBe(`from ${entry.name}`);
      expect(calls.pop()).toEqual([entry.name, ...args]);
    }
  });

  it('the loopback sandbox build has no urlFetchWhitelist (Apps Script allows https prefixes only)', () => {
    const manifest = JSON.parse(readFileSync(join(DIST_DIR, 'appsscript.json'), 'utf8'));
    expect(manifest.urlFetchWhitelist).toBeUndefined();
    expect(readdirSync(DIST_DIR).sort()).toEqual(['Code.js', 'Sidebar.html', 'appsscript.json']);
  });
});

describe('the build `npm start` runs (--playground)', () => {
  it(
    'names no base URL: the playground prints the sandbox address it sets when it starts',
    async () => {
      const build = await playgroundBuild;
      expect(build.status).toBe(0);
      expect(build.out).toContain(
        `Built ${playgroundOut}/ for the playground, which points it at its own sandbox when it starts.`,
      );
      expect(build.out).not.toMatch(/8787|http:/);
      const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
      expect(scripts.start).toBe('npm run build -- --playground && exec tsx playground/server.ts');
    },
    AWAIT_SCRIPT_MS,
  );
});

describe('a build for an https API_BASE_URL', () => {
  let out = '';
  let build: ScriptRun;

  beforeAll(async () => {
    out = httpsOut;
    build = await httpsBuild;
  }, AWAIT_SCRIPT_MS);

  it('writes Code.js, Sidebar.html and appsscript.json into the folder given, and nothing else', () => {
    expect(build.out).toContain(`Built ${out}/ for https://API.example.com/api/v1/`);
    expect(build.status).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['Code.js', 'Sidebar.html', 'appsscript.json']);
  });

  it('bakes the base URL (with its trailing slash) into the bundle', () => {
    const code = readFileSync(join(out, 'Code.js'), 'utf8');
    expect(code).toContain('"https://API.example.com/api/v1/"');
    expect(code).not.toContain('127.0.0.1:8787');
  });

  it('manifest: V8, exception logging, the whitelist of the base host, exactly the scopes the code needs', () => {
    const manifest = JSON.parse(readFileSync(join(out, 'appsscript.json'), 'utf8'));
    expect(manifest.runtimeVersion).toBe('V8');
    expect(manifest.exceptionLogging).toBe('STACKDRIVER');
    expect(manifest.urlFetchWhitelist).toEqual(['https://api.example.com/']);
    const code = readFileSync(join(out, 'Code.js'), 'utf8');
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
