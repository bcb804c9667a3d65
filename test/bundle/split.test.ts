/**
 * The two bundles in the emulator (issue 12): Apps Script loads Code.js on every execution, and the server bundle
 * (Server.html) only when an entry point other than FINDEMAIL, onOpen, onInstall or onEdit asks for it, through
 * HtmlService.createHtmlOutputFromFile, at most once per execution.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Environment, type ExecutionResult } from '../../emulator';
import { emailOf } from '../findemail/helpers';
import { OWNER, startWorld, url, type World } from '../support/harness';

const LOAD = 'HtmlService.createHtmlOutputFromFile';

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

test('=FINDEMAIL cells, onOpen and onEdit run in Code.js alone: no HTML file is read', async () => {
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
  for (const result of report.results) expect(ok(result).counts[LOAD]).toBeUndefined();
  expect(world.env.values(world.ss.id, 'B2:C3')).toEqual([
    [emailOf(jane), emailOf(jane)],
    ['', emailOf(ann)],
  ]);

  const opened = ok(
    await world.env.execute('onOpen', [], { ...world.as(OWNER), authMode: 'NONE', event: {} }),
  );
  expect(opened.counts[LOAD]).toBeUndefined();
  expect(world.env.ui.menus.length).toBeGreaterThan(0);
  const edited = ok(await world.env.edit(world.ss.id, 'A3', [[url('bob-ray')]]));
  expect(edited.counts[LOAD]).toBeUndefined();
  expect(world.env.counts[LOAD]).toBeUndefined();
});

test('a sidebar call and a menu action load Server.html once per execution, each execution again', async () => {
  world = await startWorld({ data: [['Profile URL'], [url('jane-doe')]] });
  // google.script.run calls from the sidebar: each is an execution with fresh globals.
  for (let i = 0; i < 2; i++) {
    const state = ok(await world.env.execute('getSidebarState', [], world.as()));
    expect(state.counts[LOAD]).toBe(1);
    expect(state.value).toMatchObject({ hasKey: true, maskedKey: expect.stringMatching(/cdef$/) });
  }
  const progress = ok(await world.env.execute('getEnrichmentProgress', [], world.as()));
  expect(progress.counts[LOAD]).toBe(1);
  // The menu's Settings: the server bundle, then the sidebar from its template (not an HtmlOutput from a file).
  const settings = ok(await world.env.execute('showSettings', [], world.as()));
  expect(settings.counts[LOAD]).toBe(1);
  expect(settings.counts['HtmlService.createTemplateFromFile']).toBe(1);
  expect(world.env.ui.sidebars).toHaveLength(1);
  expect(world.env.counts[LOAD]).toBe(4);
  // The server bundle read as it is never appears among the HTML the executions made.
  for (const output of world.env.htmlOutputs)
    expect(output.content).not.toContain('ProfileEmailFinderServer');
});

test('the emulator loads every script file and no HTML file; an HTML file is read as it is, scriptlets and all', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pef-split-'));
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
