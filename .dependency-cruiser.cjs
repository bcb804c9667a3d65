/**
 * `npm run check:imports`: no module of src/ imports itself through others (type-only imports count too), and
 * outside src/lookup/ profiles are looked up one way only: src/lookup/session.ts (openLookup).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import circle in src/: each module of the circle needs the others. Give the shared part its own module.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'one-way-to-look-up',
      severity: 'error',
      comment:
        "The lookup session's parts (claim step, sending) are its own: outside src/lookup/ look up through openLookup (src/lookup/session.ts).",
      from: { path: '^src/', pathNot: '^src/lookup/' },
      to: { path: '^src/lookup/(pipeline|claimStep)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
