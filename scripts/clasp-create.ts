/**
 * `npm run clasp:create`: creates a standalone Apps Script project with the pinned clasp and writes its scriptId
 * into .clasp.json with rootDir dist. `-- --script-id ID` uses an existing project instead (Project Settings › IDs).
 *
 * clasp create refuses ("Project file already exists.") wherever it finds a .clasp.json with a scriptId key, even an
 * empty one, and it pulls the new project's files into its rootDir. So it runs in an empty temporary folder, and
 * this script writes the id it got into the project's .clasp.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, readScriptId, runClasp, writeClaspSettings } from './clasp';

const DEFAULT_TITLE = 'Profile Email Finder';
/** Apps Script project ids are long base64url-like strings (about 57 characters). */
const SCRIPT_ID = /^[A-Za-z0-9_-]{20,}$/;

function fail(message: string): never {
  console.error(`Not created: ${message}`);
  process.exit(1);
}

function createInTempFolder(title: string): string {
  const temp = mkdtempSync(join(tmpdir(), 'clasp-create-'));
  try {
    const create = runClasp(['create-script', '--type', 'standalone', '--title', title, '--json'], {
      cwd: temp,
      capture: true,
    });
    if (create.error) fail(`clasp could not start: ${create.error.message} (run npm install first).`);
    if (create.status !== 0)
      fail(
        'clasp says why above. Log in first (npm run clasp:login), and turn the Apps Script API on at ' +
          'https://script.google.com/home/usersettings (a change there can take a few minutes to apply).',
      );
    const scriptId = readScriptId(temp);
    if (!scriptId)
      fail(`clasp created no .clasp.json with a scriptId (its output: ${create.stdout.trim()}).`);
    return scriptId;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

function main(): void {
  const { values } = parseArgs({
    options: {
      'script-id': { type: 'string' },
      title: { type: 'string', default: DEFAULT_TITLE },
      dir: { type: 'string', default: ROOT },
    },
  });
  const dir = resolve(values.dir);
  const existing = readScriptId(dir);
  if (existing)
    fail(
      `.clasp.json already names the project ${existing} (https://script.google.com/d/${existing}/edit). ` +
        'Delete .clasp.json first to use another one.',
    );
  const given = values['script-id']?.trim();
  if (given !== undefined && !SCRIPT_ID.test(given))
    fail(`"${given}" is not an Apps Script project id (Project Settings › IDs › Script ID).`);
  const scriptId = given ?? createInTempFolder(values.title);
  const file = writeClaspSettings(scriptId, dir);
  console.log(
    `${given ? 'Using' : 'Created'} the Apps Script project https://script.google.com/d/${scriptId}/edit\n` +
      `Wrote ${relative(process.cwd(), file) || file} (rootDir dist). Next: API_BASE_URL=https://…/api/v1/ npm run clasp:push`,
  );
}

main();
