/**
 * Issue 39, finding 9 (suspected): an unexpected error whose text holds the API key. A bulk run over a platform of
 * plain objects (./world.ts) whose service call throws such an error: the key lives in the user's
 * properties only (never in a message a person reads), and another editor sees no raw error text.
 */
import { continueEnrichment, getEnrichmentProgress } from '../../src/bulk/controls';
import type { Platform } from '../../src/core/ports';
import { JOB_PROPERTY } from '../../src/core/propertyNames';
import { bulkWorld, profile, start } from './world';

/** The key bulkWorld's person saved (./world.ts). */
const KEY = 'sk_test_key_000000000000';
/** What a failing transport might say: a proxy's page quoting the request's headers. */
const RAW = `Request failed: 400 Bad Request (X-KEY: ${KEY}) <html><body>bad header</body></html>`;

/** The same platform as seen by another editor of the spreadsheet. */
function asAnotherEditor(platform: Platform): Platform {
  return {
    ...platform,
    runner: { id: () => 'runner-2', ensureId: () => 'runner-2', email: () => 'bob@example.test' },
  };
}

it('An unexpected error whose text holds the API key: neither the stored run nor what its starter or another editor reads holds the key, and another editor reads no raw error text', () => {
  const rows = [['Profile'], ...Array.from({ length: 30 }, (_, i) => [profile(`err-${i}`)])];
  const { platform } = bulkWorld(
    rows,
    { row: 1, column: 1, rows: 31, columns: 1 },
    {
      beforeSend: () => {
        throw new Error(RAW);
      },
    },
  );
  const started = start(platform);
  const starters = started.progress.state === 'running' ? continueEnrichment(platform) : started.progress;
  const others = getEnrichmentProgress(asAnotherEditor(platform));
  const stored = platform.documentProperties().getProperty(JOB_PROPERTY) ?? '';
  expect({
    keyInTheStoredRun: stored.includes(KEY),
    keyInTheStartersView: JSON.stringify(starters).includes(KEY),
    keyInAnotherEditorsView: JSON.stringify(others).includes(KEY),
    rawTextInAnotherEditorsView: JSON.stringify(others).includes('Bad Request'),
  }).toEqual({
    keyInTheStoredRun: false,
    keyInTheStartersView: false,
    keyInAnotherEditorsView: false,
    rawTextInAnotherEditorsView: false,
  });
});
