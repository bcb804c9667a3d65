/**
 * `npm run sandbox -- [--port 8787] [--key K] [--credits N] [--latency MS|MIN-MAX]
 *   [--latency-median MS (--latency-p95 MS | --latency-p99 MS) [--latency-max MS]]
 *   [--max-in-flight N] [--max-per-second N] [--retry-after S] [--error500-rate R] [--reset-rate R]
 *   [--error429-rate R] [--html-error-rate R] [--slow-ms MS] [--seed N] [--org name:key:credits]...`
 * (`--help` lists them with their defaults.)
 * Without --org, one organization "demo"; --key and --credits apply to it. With --org only, just those.
 */
import { type CliConfig, formatLogLine, parseCli, USAGE } from './cliArgs';
import { type SandboxServer, startSandbox } from './server';

async function main(): Promise<void> {
  let config: CliConfig | 'help';
  try {
    config = parseCli(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    console.error(USAGE);
    process.exitCode = 2;
    return;
  }
  if (config === 'help') {
    console.log(USAGE);
    return;
  }
  const sandbox: SandboxServer = await startSandbox({
    port: config.port,
    organizations: config.organizations,
    faults: config.faults,
    seed: config.seed,
    onRequest: (entry) => console.log(formatLogLine(entry)),
  });
  console.log(`Sandbox e-mail finder service (local, fictional data) on ${sandbox.origin}`);
  console.log(`Base URL: ${sandbox.baseUrl}`);
  for (const org of config.organizations) {
    console.log(`Organization ${org.name}: key ${org.keys.join(', ')}, ${org.credits} credits`);
  }
  if (Object.keys(config.faults).length > 0) console.log(`Faults: ${JSON.stringify(config.faults)}`);
  console.log('Press Ctrl-C to stop.');

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.exit(130);
    }
    stopping = true;
    console.log(`${signal}: stopping the sandbox.`);
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
