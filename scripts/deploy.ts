/**
 * `npm run deploy`: builds dist/ for the real service and pushes it with clasp.
 * Refuses, with the reason, when API_BASE_URL is missing or not https, or .clasp.json has no scriptId.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveEndpoint } from '../src/core/config';
import { buildAll } from './build';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function refuse(message: string): never {
  console.error(`Not deployed: ${message}`);
  process.exit(1);
}

async function main(): Promise<void> {
  const base = process.env.API_BASE_URL ?? '';
  if (!base)
    refuse(
      'set API_BASE_URL to the service base URL, e.g. API_BASE_URL=https://api.example.com/api/v1/ npm run deploy',
    );
  const endpoint = resolveEndpoint(base);
  if (!endpoint.ok) refuse(endpoint.message);
  if (!endpoint.base.startsWith('https://')) refuse('a deployed add-on must call the service over https.');
  const clasp = JSON.parse(readFileSync(join(root, '.clasp.json'), 'utf8')) as { scriptId?: string };
  if (!clasp.scriptId)
    refuse('.clasp.json has no scriptId: create the Apps Script project first (README, "Deploy").');

  await buildAll(base);
  console.log(`Built dist/ for ${endpoint.base}; pushing with clasp…`);
  const push = spawnSync('npx', ['--yes', '@google/clasp@3', 'push', '--force'], {
    cwd: root,
    stdio: 'inherit',
  });
  process.exit(push.status ?? 1);
}

void main();
