/**
 * `npm run clasp:push`: builds dist/ for the real service and pushes it with the pinned clasp (scripts/clasp.ts).
 * `npm run clasp:deploy` (`--deployment`): the same, then `clasp create-deployment`, a numbered version and
 * deployment (what publishing needs; a test deployment set to "Latest Code" sees a push on reload).
 * Refuses, with the reason, when API_BASE_URL is missing or not https, or .clasp.json has no scriptId.
 */
import { parseArgs } from 'node:util';
import { resolveEndpoint } from '../src/core/config';
import { BUILT_FILES, buildAll } from './build';
import { CLASP_ROOT_DIR, ROOT, readScriptId, runClasp } from './clasp';

/** What clasp must push, and nothing else (.claspignore keeps the rest of dist/ out). */
const PUSHED_FILES = BUILT_FILES.map((f) => `${CLASP_ROOT_DIR}/${f}`);

function refuse(message: string): never {
  console.error(`Not deployed: ${message}`);
  process.exit(1);
}

/** Runs clasp in the project root; stops with clasp's own exit code when it fails. */
function clasp(args: string[], capture = false): string {
  const run = runClasp(args, { cwd: ROOT, capture });
  if (run.error) refuse(`clasp could not start: ${run.error.message} (run npm install first).`);
  if (run.status !== 0) {
    console.error(
      `clasp ${args[0]} failed (see above). Not logged in: npm run clasp:login. "User has not enabled the Apps ` +
        'Script API": turn it on at https://script.google.com/home/usersettings, wait a few minutes, retry.',
    );
    process.exit(run.status ?? 1);
  }
  return run.stdout ?? '';
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { deployment: { type: 'boolean', default: false } } });
  const base = process.env.API_BASE_URL ?? '';
  if (!base)
    refuse(
      'set API_BASE_URL to the service base URL, e.g. API_BASE_URL=https://api.example.com/api/v1/ npm run clasp:push',
    );
  const endpoint = resolveEndpoint(base);
  if (!endpoint.ok) refuse(endpoint.message);
  if (!endpoint.base.startsWith('https://')) refuse('a deployed add-on must call the service over https.');
  if (!readScriptId())
    refuse(
      '.clasp.json has no scriptId: run npm run clasp:create first (README, "Deploy to a Google account").',
    );

  await buildAll(base);
  console.log(`Built dist/ for ${endpoint.base}`);
  // `clasp status` is offline: the files push would send, checked before anything leaves the machine.
  const status = JSON.parse(clasp(['status', '--json'], true)) as { filesToPush: string[] };
  const pushed = status.filesToPush.map((f) => f.replaceAll('\\', '/')).sort();
  if (pushed.join() !== [...PUSHED_FILES].sort().join())
    refuse(
      `clasp would push ${pushed.join(', ')} instead of ${PUSHED_FILES.join(', ')} (check .claspignore).`,
    );
  clasp(['push', '--force']);
  if (values.deployment)
    clasp(['create-deployment', '--description', `Profile Email Finder for ${endpoint.base}`]);
}

void main();
