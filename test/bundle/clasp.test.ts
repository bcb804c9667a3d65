/**
 * clasp from a fresh clone, offline: `npm run clasp:create -- --script-id ID` writes the .clasp.json clasp reads, and
 * the pinned clasp itself (`clasp status --json`, run through scripts/clasp.ts as the npm scripts run it) would push
 * exactly dist/Code.js, dist/Sidebar.html and dist/appsscript.json. Every process runs under the
 * offline guard: a connection or DNS lookup fails the test.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AWAIT_SCRIPT_MS,
  cleanUp,
  guardRecords,
  ROOT,
  runNode,
  runScript,
  type ScriptRun,
  tempDir,
} from './scripts';

const PLACEHOLDER_ID = '1PlaceholderScriptIdForAnOfflineTest_0000000000000000000000';
const BUILT = ['Code.js', 'Sidebar.html', 'appsscript.json'];
const PUSHED = BUILT.map((file) => `dist/${file}`);
const CLASP_ENTRY = require.resolve('@google/clasp');
const DIST_DIR = join(ROOT, 'dist');

/** A copy of the project as clasp sees it: dist/ as built, plus files a build or an editor may leave there. */
function projectCopy(withIgnoreFile: boolean): string {
  const dir = tempDir('pef-clasp-');
  mkdirSync(join(dir, 'dist', 'notes'), { recursive: true });
  for (const file of BUILT) copyFileSync(join(DIST_DIR, file), join(dir, 'dist', file));
  writeFileSync(join(dir, 'dist', 'Code.js.map'), '{}');
  writeFileSync(join(dir, 'dist', 'scratch.js'), 'function scratch() {}\n');
  // What builds of the split layout wrote: code kept in an HTML file. Apps Script must not get it again.
  writeFileSync(join(dir, 'dist', 'Server.html'), 'var ProfileEmailFinderServer;\n');
  writeFileSync(join(dir, 'dist', 'notes', 'draft.html'), '<p>draft</p>\n');
  if (withIgnoreFile) copyFileSync(join(ROOT, '.claspignore'), join(dir, '.claspignore'));
  return dir;
}

interface Status {
  filesToPush: string[];
  untrackedFiles: string[];
}

function parseStatus(run: ScriptRun): Status {
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Status;
}

const guardLog = join(tempDir(), 'refused.txt');
// HOME in a temporary folder: no developer's ~/.clasprc.json is read, as on a fresh machine.
const offline = (cwd: string) => ({ cwd, guardLog, env: { HOME: cwd, USERPROFILE: cwd } });

const project = projectCopy(true);
const created = runScript(
  'clasp-create.ts',
  ['--script-id', PLACEHOLDER_ID, '--dir', project],
  offline(project),
);
const status = created.then(() => runScript('clasp.ts', ['status', '--json'], offline(project)));
// The same copy without .claspignore, with clasp's default ignore rules.
const bare = projectCopy(false);
writeFileSync(join(bare, '.clasp.json'), JSON.stringify({ scriptId: PLACEHOLDER_ID, rootDir: 'dist' }));
const bareStatus = runNode([CLASP_ENTRY, 'status', '--json'], offline(bare));
// The old committed template ("scriptId": "") is replaced; a real id is never overwritten.
const template = tempDir();
writeFileSync(join(template, '.clasp.json'), '{ "scriptId": "", "rootDir": "dist" }\n');
const overTemplate = runScript('clasp-create.ts', ['--script-id', PLACEHOLDER_ID, '--dir', template], {
  ...offline(template),
  noSpawn: true,
});
const overExisting = overTemplate.then(() =>
  runScript('clasp-create.ts', ['--dir', template], { ...offline(template), noSpawn: true }),
);
// The guard itself: a fetch under it is refused and recorded.
const probeLog = join(tempDir(), 'probe.txt');
const probe = runNode(['-e', "fetch('https://script.google.com/').catch(() => console.log('refused'))"], {
  guardLog: probeLog,
});

afterAll(cleanUp);

describe('clasp from a fresh clone (offline)', () => {
  it(
    'clasp:create -- --script-id writes .clasp.json with the id and rootDir dist',
    async () => {
      const run = await created;
      expect(run.out).toContain(
        `Using the Apps Script project https://script.google.com/d/${PLACEHOLDER_ID}/edit`,
      );
      expect(run.status).toBe(0);
      expect(JSON.parse(readFileSync(join(project, '.clasp.json'), 'utf8'))).toEqual({
        scriptId: PLACEHOLDER_ID,
        rootDir: 'dist',
      });
    },
    AWAIT_SCRIPT_MS,
  );

  it(
    'the real clasp status would push exactly Code.js, Sidebar.html and appsscript.json of dist/',
    async () => {
      const { filesToPush, untrackedFiles } = parseStatus(await status);
      expect([...filesToPush].sort()).toEqual([...PUSHED].sort());
      expect([...untrackedFiles].sort()).toEqual([
        'dist/Code.js.map',
        'dist/Server.html',
        'dist/notes/',
        'dist/scratch.js',
      ]);
    },
    AWAIT_SCRIPT_MS,
  );

  it(
    "without .claspignore clasp's defaults would also push stray .js and .html files",
    async () => {
      const { filesToPush } = parseStatus(await bareStatus);
      expect(filesToPush).toEqual(expect.arrayContaining(['dist/scratch.js', 'dist/notes/draft.html']));
    },
    AWAIT_SCRIPT_MS,
  );

  it(
    'clasp:create replaces an empty scriptId and refuses to overwrite a real one, without starting clasp',
    async () => {
      expect((await overTemplate).status).toBe(0);
      const again = await overExisting;
      expect(again.status).toBe(1);
      expect(again.out).toContain(`Not created: .clasp.json already names the project ${PLACEHOLDER_ID}`);
      expect(JSON.parse(readFileSync(join(template, '.clasp.json'), 'utf8')).scriptId).toBe(PLACEHOLDER_ID);
    },
    AWAIT_SCRIPT_MS,
  );

  it(
    'nothing reached for the network (the guard does refuse and record a fetch)',
    async () => {
      await Promise.all([status, bareStatus, overExisting]);
      expect(guardRecords(guardLog)).toEqual([]);
      const probed = await probe;
      expect(probed.stdout).toContain('refused');
      expect(guardRecords(probeLog)).toContain('connect script.google.com:443');
    },
    AWAIT_SCRIPT_MS,
  );
});
