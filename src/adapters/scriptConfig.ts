/**
 * The add-on owner's configuration in script properties, read once per execution. Formulas read it from a copy in
 * the script cache (common to all users of the script: apps-script/reference/cache/cache-service#getScriptCache()),
 * so a cached =FINDEMAIL evaluation spends no property call on it; every execution that reads the properties
 * themselves refreshes the copy. A script-property change thus reaches bulk runs and the sidebar at once and
 * formulas within SCRIPT_CONFIG_CACHE_SECONDS (10 minutes).
 */
import { configuredEndpoint, type ScriptConfig } from '../core/config';
import { DEFAULT_MAX_CONCURRENCY, MAX_BATCH_SIZE, SCRIPT_CONFIG_CACHE_SECONDS } from '../core/limits';
import { SCRIPT_CONFIG_CACHE_KEY, SCRIPT_PROPERTY } from '../core/propertyNames';
import { isRecord, parseStored } from '../core/storedJson';
import { parseNetworkHosts } from '../core/url';

type Raw = Record<string, string | undefined>;

let scriptConfig: ScriptConfig | undefined;

function positiveInt(raw: string | undefined): number | undefined {
  const value = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;
}

function parseConfig(props: Raw): ScriptConfig {
  return {
    endpoint: configuredEndpoint(props[SCRIPT_PROPERTY.apiBaseUrl], __API_BASE_URL__, __URL_ALLOWLIST__),
    stepBudgetMs: positiveInt(props[SCRIPT_PROPERTY.stepBudgetMs]),
    batchSize: positiveInt(props[SCRIPT_PROPERTY.batchSize]),
    concurrency: positiveInt(props[SCRIPT_PROPERTY.concurrency]),
    maxConcurrency: Math.min(
      MAX_BATCH_SIZE,
      positiveInt(props[SCRIPT_PROPERTY.maxConcurrency]) ?? DEFAULT_MAX_CONCURRENCY,
    ),
    findEmailBudgetMs: positiveInt(props[SCRIPT_PROPERTY.findEmailBudgetMs]),
    slices: positiveInt(props[SCRIPT_PROPERTY.slices]),
    networkHosts: parseNetworkHosts(props[SCRIPT_PROPERTY.networkHosts]),
  };
}

/** The script properties themselves (one property call); refreshes the script cache's copy of the add-on's own. */
export function readScriptConfig(): ScriptConfig {
  if (scriptConfig) return scriptConfig;
  const props = PropertiesService.getScriptProperties().getProperties();
  // Only the add-on's names go into the cache: never another property the operator may keep there.
  const own: Raw = {};
  for (const name of Object.values(SCRIPT_PROPERTY)) own[name] = props[name];
  CacheService.getScriptCache().put(
    SCRIPT_CONFIG_CACHE_KEY,
    JSON.stringify(own),
    SCRIPT_CONFIG_CACHE_SECONDS,
  );
  scriptConfig = parseConfig(own);
  return scriptConfig;
}

/**
 * For formulas: the script cache's copy, at most SCRIPT_CONFIG_CACHE_SECONDS old; the properties when the cache
 * has none (expired, or dropped early: the cache is best-effort, apps-script/reference/cache/cache).
 */
export function readCachedScriptConfig(): ScriptConfig {
  if (scriptConfig) return scriptConfig;
  const cached = CacheService.getScriptCache().get(SCRIPT_CONFIG_CACHE_KEY);
  const copy = parseStored(cached);
  if (!isRecord(copy)) return readScriptConfig();
  const own: Raw = {};
  for (const name of Object.values(SCRIPT_PROPERTY))
    if (typeof copy[name] === 'string') own[name] = copy[name];
  scriptConfig = parseConfig(own);
  return scriptConfig;
}
