/**
 * One test world: the sandbox service on 127.0.0.1 (real HTTP) and the Apps Script emulator running dist/Code.js
 * against it, with a spreadsheet whose owner has saved a key.
 *
 *   const world = await startWorld({ credits: 50, data: [['Profile URL'], [url('jane-doe')]] });
 *   try { await world.env.run('enrichSelection', [], world.as()); } finally { await world.close(); }
 */

import { Environment, type EnvironmentOptions, type RunOptions, type SpreadsheetModel } from '../../emulator';
import { type SandboxServer, startSandbox } from '../../sandbox/server';
import type { FaultConfig } from '../../sandbox/service';
import { API_KEY_PROPERTY, SETTINGS_PROPERTY } from '../../src/core/propertyNames';
import { parseNetworkHosts, parseProfileInput } from '../../src/core/url';
import { cellTexts, slipsIn, stringsIn } from './slips';

export const OWNER = 'owner@example.com';
export const EDITOR = 'editor@example.com';
export const OWNER_KEY = 'owner-key-1234567890abcdef';
export const EDITOR_KEY = 'editor-key-0987654321fedcba';
export const ORG = 'owner-org';
export const EDITOR_ORG = 'editor-org';
/** The add-on's user property for the API key (src/core/propertyNames.ts). */
export { API_KEY_PROPERTY };

/** The settings of a person who chose to start runs under 1,000,000 credits at once (WorldOptions.startsAtOnce). */
export const START_AT_ONCE = JSON.stringify({ startAtOnce: true, startAtOnceUnder: 1_000_000 });

/** The sandbox's network (script property NETWORK_HOSTS): its profile URLs are `network.com/in/<slug>`. */
export const SANDBOX_NETWORK_HOSTS = 'network.com';

/** A profile URL on the sandbox's network; the slug decides the answer (sandbox/profiles.ts). */
export function url(slug: string, host = 'www.network.com'): string {
  return `https://${host}/in/${slug}`;
}

/**
 * The `network_url` the add-on sends for a profile URL: its canonical spelling (`https://www.network.com/in/<id>/`,
 * src/core/url.ts; test/bundle/url.test.ts checks it literally). Throws for text that is not a profile URL.
 */
export function sentFor(profileUrl: string): string {
  const input = parseProfileInput(profileUrl, parseNetworkHosts(SANDBOX_NETWORK_HOSTS));
  if (input.kind !== 'url') throw new Error(`not a profile URL of the sandbox: ${profileUrl}`);
  return input.sent;
}

/**
 * LockService's rate quota as the suites where money is at stake run it (20 calls a second, as lock-quota.test.ts:
 * the real quota is undocumented but reported, emulator/README.md).
 */
export const LOCK_QUOTA_WINDOW_MS = 1_000;
export const LOCK_QUOTA: EnvironmentOptions = {
  lockRateLimit: { calls: 20, windowMs: LOCK_QUOTA_WINDOW_MS },
};

export interface WorldOptions {
  credits?: number;
  editorCredits?: number;
  faults?: FaultConfig;
  /** The sandbox's seed (its fault and latency draws); default 1. */
  seed?: number;
  data?: unknown[][];
  /** Rows of the spreadsheet's first sheet (default: the emulator's 1,000); for data longer than that. */
  rows?: number;
  /** Script properties besides API_BASE_URL and NETWORK_HOSTS (ENRICH_BATCH_SIZE, ENRICH_STEP_BUDGET_MS, ...). */
  scriptProperties?: Record<string, string>;
  /** Save OWNER_KEY in the owner's user properties (default true). */
  ownerKey?: boolean;
  /**
   * Default true: the owner and the editor have chosen in Settings to start runs under 1,000,000 credits at once,
   * so the menu's Find e-mails starts the run (most suites use it as the shortest way to start one). False: the
   * add-on's default, where the menu opens the plan and nothing starts before Start.
   */
  startsAtOnce?: boolean;
  env?: EnvironmentOptions;
}

export interface World {
  sandbox: SandboxServer;
  env: Environment;
  ss: SpreadsheetModel;
  /** Run options for the open spreadsheet, as `user` (default the owner). */
  as(user?: string, extra?: RunOptions): RunOptions;
  /** Distinct normalised URL -> credits charged, from the sandbox's ledger. */
  charges(): Record<string, number>;
  /**
   * Ends the world. Fails (after closing) when a message a person reads had a slip (test/support/slips.ts): a
   * cell's value, note or formula error, or a text a server function returned or threw.
   */
  close(): Promise<void>;
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const sandbox = await startSandbox({
    port: 0,
    organizations: [
      { name: ORG, keys: [OWNER_KEY], credits: options.credits ?? 1000 },
      { name: EDITOR_ORG, keys: [EDITOR_KEY], credits: options.editorCredits ?? 1000 },
    ],
    faults: options.faults,
    seed: options.seed,
  });
  let env: Environment | undefined;
  try {
    env = new Environment({
      ...options.env,
      scriptProperties: {
        API_BASE_URL: sandbox.baseUrl,
        NETWORK_HOSTS: SANDBOX_NETWORK_HOSTS,
        ...options.scriptProperties,
      },
    });
    const ss = env.createSpreadsheet({ owner: OWNER, data: options.data, rows: options.rows });
    if (options.ownerKey !== false) env.userProperties(OWNER).set({ [API_KEY_PROPERTY]: OWNER_KEY });
    if (options.startsAtOnce !== false) {
      for (const user of [OWNER, EDITOR])
        env.userProperties(user).set({ [SETTINGS_PROPERTY]: START_AT_ONCE });
    }
    const said = watchMessages(env);
    const world: World = {
      sandbox,
      env,
      ss,
      as: (user = OWNER, extra = {}) => ({ user, spreadsheetId: ss.id, ...extra }),
      charges: () => sandbox.service.chargesByUrl(),
      async close() {
        const slips = [...said, ...cellTexts(ss)].flatMap((text) => [
          ...slipsIn(text),
          ...(text.includes(OWNER_KEY) || text.includes(EDITOR_KEY) ? [`an API key in: ${text}`] : []),
        ]);
        await env?.close();
        await sandbox.close();
        // Every suite checks it: a document lock released with sheet writes not flushed.
        const unflushed = env?.lockReleasesWithPendingWrites ?? 0;
        if (unflushed > 0) throw new Error(`${unflushed} lock release(s) with sheet writes not flushed`);
        if (slips.length > 0) throw new Error(`Messages with slips:\n${[...new Set(slips)].join('\n')}`);
      },
    };
    return world;
  } catch (error) {
    await env?.close();
    await sandbox.close();
    throw error;
  }
}

/** Every text the server functions of `env` return or throw, for the slips check in World.close. */
function watchMessages(env: Environment): string[] {
  const said: string[] = [];
  const execute = env.execute.bind(env);
  env.execute = async (fn, args, options) => {
    const result = await execute(fn, args, options);
    stringsIn(result.value, said);
    if (result.error) said.push(result.error.message);
    return result;
  };
  return said;
}
