/**
 * One script file: dist/Code.js holds the whole add-on. No code is kept in an HTML file to be read and
 * evaluated, because HtmlService is reported to remove the text after `//` inside template literals of HTML files
 * (emulator/README.md, HtmlService). Every entry point runs from Code.js alone in the emulator, which
 * loads every script file of dist/ and reads an HTML file only through HtmlService.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import ts from 'typescript';
import { DIST_DIR, Environment, type ExecutionResult } from '../../emulator';
import { drive } from '../e2e/bulk/helpers';
import { emailOf } from '../e2e/formula/helpers';
import { OWNER, startWorld, url, type World } from '../support/harness';
import { ROOT } from './scripts';

const READ_FILE = 'HtmlService.createHtmlOutputFromFile';
const READ_TEMPLATE = 'HtmlService.createTemplateFromFile';

let world: World | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});

function ok(result: ExecutionResult): ExecutionResult {
  expect(result.error).toBeUndefined();
  expect(result.ok).toBe(true);
  return result;
}

/** The exported functions of src/main.ts, with the text of their JSDoc. */
function entryPoints(): Array<{ name: string; jsDoc: string }> {
  const file = join(ROOT, 'src', 'main.ts');
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2020, true);
  return source.statements.filter(ts.isFunctionDeclaration).flatMap((fn) => {
    if (!fn.name || !fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return [];
    const jsDoc = ts.getJSDocCommentsAndTags(fn).find(ts.isJSDoc);
    return [{ name: fn.name.text, jsDoc: jsDoc ? text.slice(jsDoc.getStart(source), jsDoc.getEnd()) : '' }];
  });
}

/** The text of every template literal (each part, substitutions left out) in a script. */
function templateTexts(script: string): string[] {
  const source = ts.createSourceFile('inline.js', script, ts.ScriptTarget.ES2020, true, ts.ScriptKind.JS);
  const texts: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node))
      texts.push(node.rawText ?? '');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return texts;
}

describe('dist/ as clasp pushes it', () => {
  const files = readdirSync(DIST_DIR);
  const code = readFileSync(join(DIST_DIR, 'Code.js'), 'utf8');

  it('holds one script file, Code.js, beside the sidebar and the manifest', () => {
    expect(files.sort()).toEqual(['Code.js', 'Sidebar.html', 'appsscript.json']);
  });

  it('no HTML file holds code to evaluate: each is an HTML page, not JavaScript, and holds none of the bundle', () => {
    const pages = files.filter((file) => file.endsWith('.html'));
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) {
      const content = readFileSync(join(DIST_DIR, page), 'utf8');
      expect(content).toMatch(/^\s*<!DOCTYPE html>/i);
      expect(() => new vm.Script(content)).toThrow(/^Unexpected token '<'/);
      expect(content).not.toContain('ProfileEmailFinder');
      // Names esbuild keeps as strings in the bundle (keepNames): server code would carry them.
      for (const name of ['enrichSelection', 'planFor', 'processSlice', 'fetchAll'])
        expect(content).not.toContain(`"${name}"`);
    }
  });

  it('no script of an HTML page has `//` inside a template literal (reported to be cut there by HtmlService)', () => {
    const pages = files.filter((file) => file.endsWith('.html'));
    const scripts = pages.flatMap((page) =>
      [...readFileSync(join(DIST_DIR, page), 'utf8').matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
        (m) => m[1],
      ),
    );
    expect(scripts.length).toBeGreaterThan(0);
    const texts = scripts.flatMap(templateTexts);
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.filter((text) => text.includes('//'))).toEqual([]);
    // The check sees each part of a literal with substitutions.
    expect(templateTexts('const a = `x $' + '{1} https://y`;')).toEqual(['x ', ' https://y']);
  });

  it('Code.js evaluates no text and reads no HTML file as code: no eval, no new Function', () => {
    expect(code).not.toMatch(/\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(/);
    expect(code).not.toContain('createHtmlOutputFromFile');
    // The bundle's long lines are cut with a line continuation (backslash, newline), which may fall inside a name.
    expect(code.replace(/\\\n/g, '')).toContain('"processSlice"');
  });

  it.each(entryPoints().map((entry) => [entry.name, entry] as const))(
    '%s has its top-level stub in Code.js, after its JSDoc',
    (name, entry) => {
      expect(entry.jsDoc).toMatch(/^\/\*\*[\s\S]*\*\/$/);
      expect(code).toContain(`${entry.jsDoc}\nfunction ${name}(`);
    },
  );
});

test('=FINDEMAIL cells, onOpen and onEdit run from Code.js: no HTML file is read', async () => {
  const jane = url('jane-doe');
  const ann = url('ann-lee');
  world = await startWorld({
    data: [
      ['Profile URL', 'Email', 'Range'],
      [jane, '=FINDEMAIL(A2)', '=FINDEMAIL(A2:A3)'],
      [ann, '', ''],
    ],
  });
  const report = await world.env.recalculate(world.ss.id);
  expect(report.evaluated).toBe(2);
  for (const result of report.results) expect(ok(result).counts[READ_FILE]).toBeUndefined();
  expect(world.env.values(world.ss.id, 'B2:C3')).toEqual([
    [emailOf(jane), emailOf(jane)],
    ['', emailOf(ann)],
  ]);
  ok(await world.env.execute('onOpen', [], { ...world.as(OWNER), authMode: 'NONE', event: {} }));
  expect(world.env.ui.menus.length).toBeGreaterThan(0);
  ok(await world.env.edit(world.ss.id, 'A3', [[url('bob-ray')]]));
  expect(world.env.counts[READ_FILE]).toBeUndefined();
});

test('the menu run (enrichSelection) and the sidebar calls run from Code.js: only the sidebar page is read', async () => {
  const links = ['cy-park', 'di-moss', 'ed-fox'].map((slug) => url(slug));
  world = await startWorld({ data: [['Profile URL'], ...links.map((link) => [link])] });
  world.env.select(world.ss.id, 'A1:A4');
  const started = ok(await world.env.execute('enrichSelection', [], world.as()));
  expect(started.counts[READ_FILE]).toBeUndefined();
  expect((await drive(world)).state).toBe('done');
  expect(world.sandbox.service.totalCharged()).toBe(3);
  const emails = world.env.values(world.ss.id, 'A2:B4').map((row) => row[1]);
  expect(emails).toEqual(links.map(emailOf));
  const state = ok(await world.env.execute('getSidebarState', [], world.as()));
  expect(state.value).toMatchObject({ hasKey: true, maskedKey: expect.stringMatching(/cdef$/) });
  // The sidebar is made from its template; no execution read an HTML file's content as it is.
  expect(world.env.counts[READ_TEMPLATE]).toBeGreaterThan(0);
  expect(world.env.counts[READ_FILE]).toBeUndefined();
});

test('the emulator loads every script file and no HTML file; an HTML file is read as it is, scriptlets and all', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pef-files-'));
  const page = '// <?= "not evaluated" ?> & <b>kept</b>\nvar fromHtml = 1;\n';
  writeFileSync(join(dir, 'Page.html'), page);
  writeFileSync(join(dir, 'Other.js'), 'var fromOther = 1;\n');
  writeFileSync(
    join(dir, 'Code.js'),
    'function probe() {\n' +
      "  const content = HtmlService.createHtmlOutputFromFile('Page').getContent();\n" +
      '  return [typeof fromOther, typeof fromHtml, content];\n}\n',
  );
  const env = new Environment({ distDir: dir });
  try {
    expect(await env.run('probe')).toEqual(['number', 'undefined', page]);
  } finally {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
