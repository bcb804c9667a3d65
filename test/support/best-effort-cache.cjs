'use strict';
/** The "best-effort-cache" jest project: every world's document cache drops entries early (test/support/harness.ts). */
process.env.PEF_CACHE_EVICTION = '0.2';
