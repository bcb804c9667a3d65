/** The add-on owner's configuration in script properties, read once per execution. */
import { configuredEndpoint, type EndpointResult } from '../core/config';
import { DEFAULT_MAX_CONCURRENCY, MAX_BATCH_SIZE } from '../core/limits';
import { SCRIPT_PROPERTY } from '../core/propertyNames';
import { type NetworkHosts, parseNetworkHosts } from '../core/url';

export interface ScriptConfig {
  endpoint: EndpointResult;
  stepBudgetMs?: number;
  batchSize?: number;
  concurrency?: number;
  /** FETCH_MAX_CONCURRENCY: the adaptive batch size's cap (src/core/pace.ts). */
  maxConcurrency: number;
  /** FINDEMAIL_BUDGET_MS: lowers =FINDEMAIL's work budget (tests and operators). */
  findEmailBudgetMs?: number;
  /** NETWORK_HOSTS: the network's domains, whose profile URLs are looked up (src/core/url.ts). */
  networkHosts: NetworkHosts;
}

let scriptConfig: ScriptConfig | undefined;

function positiveInt(raw: string | undefined): number | undefined {
  const value = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;
}

export function readScriptConfig(): ScriptConfig {
  if (scriptConfig) return scriptConfig;
  const props = PropertiesService.getScriptProperties().getProperties();
  scriptConfig = {
    endpoint: configuredEndpoint(props[SCRIPT_PROPERTY.apiBaseUrl], __API_BASE_URL__, __URL_ALLOWLIST__),
    stepBudgetMs: positiveInt(props[SCRIPT_PROPERTY.stepBudgetMs]),
    batchSize: positiveInt(props[SCRIPT_PROPERTY.batchSize]),
    concurrency: positiveInt(props[SCRIPT_PROPERTY.concurrency]),
    maxConcurrency: Math.min(
      MAX_BATCH_SIZE,
      positiveInt(props[SCRIPT_PROPERTY.maxConcurrency]) ?? DEFAULT_MAX_CONCURRENCY,
    ),
    findEmailBudgetMs: positiveInt(props[SCRIPT_PROPERTY.findEmailBudgetMs]),
    networkHosts: parseNetworkHosts(props[SCRIPT_PROPERTY.networkHosts]),
  };
  return scriptConfig;
}
