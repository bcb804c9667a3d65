'use strict';
const { existsSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');

/**
 * Prints one plain closing line, "tests: N passed, N failed[, N skipped]", that CI can read whatever the runner;
 * before it, when the best-effort cache project ran, its duplicate payments (test/support/harness.ts records them).
 */
class SummaryReporter {
  constructor() {
    this.ledger = join(tmpdir(), `pef-duplicates-${process.pid}.jsonl`);
    rmSync(this.ledger, { force: true });
    // Workers start after the reporter and inherit the variable.
    process.env.PEF_DUPLICATE_LEDGER = this.ledger;
  }

  onRunComplete(_contexts, results) {
    if (existsSync(this.ledger)) {
      let profiles = 0;
      let duplicates = 0;
      for (const line of readFileSync(this.ledger, 'utf8').split('\n')) {
        if (!line) continue;
        const world = JSON.parse(line);
        profiles += world.profiles;
        duplicates += world.duplicates;
      }
      rmSync(this.ledger, { force: true });
      const rate = profiles > 0 ? (duplicates / profiles).toFixed(4) : '0';
      process.stdout.write(
        `\nbest-effort cache: ${duplicates} duplicate payments over ${profiles} charged profiles (rate ${rate})\n`,
      );
    }
    const skipped = results.numPendingTests + results.numTodoTests;
    const tail = skipped > 0 ? `, ${skipped} skipped` : '';
    process.stdout.write(
      `\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${tail}\n`,
    );
  }
}
module.exports = SummaryReporter;
