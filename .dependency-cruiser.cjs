/**
 * `npm run check:imports`: the rooms of src/ import downward only, and no module imports itself through others
 * (type-only imports count too).
 *
 * The layers, bottom up (docs/design.md, "Layers"):
 *   api.ts, core/       the words every room shares, and the ports to Apps Script (core/ports.ts); imports api.ts
 *   lookup/             the service's contract and the result's words; imports core
 *   store/              what is kept and how a lookup is bought (records, send); imports core and lookup
 *   formula/ bulk/ credits/ settings/ watch/
 *                       the features; import the rooms below, and each other only along FEATURE_EDGES
 *   sidebar/            the browser; imports only api.ts and core
 *   adapters/, main.ts  Apps Script itself (implementing the ports) and the entry points; import anything
 *   sidebarState.ts,    the sidebar's state and the removal of the add-on's data, composed for main.ts
 *   dataRemoval.ts      from the features
 * @type {import('dependency-cruiser').IConfiguration}
 */

const FEATURES = ['formula', 'bulk', 'credits', 'settings', 'watch'];

/** The only imports from one feature into another, each with its reason. */
const FEATURE_EDGES = [
  // (settings imports no feature: the sidebar's state and the data removal are composed at the entry layer,
  // src/sidebarState.ts and src/dataRemoval.ts.)
  // The credits view says when a bulk run is under way (its figures still move).
  ['credits', 'bulk'],
  // A watch's trigger run is slices of a bulk run over the watched rows: it plans, creates and drives a bulk job,
  // through src/bulk/forWatch.ts only (rule watch-through-bulk-for-watch).
  ['watch', 'bulk'],
];

const rooms = (names) => `^src/(${names.join('|')})/`;

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
      name: 'core-at-the-bottom',
      severity: 'error',
      comment: 'src/core/ and src/api.ts are the bottom layer: core imports only core and api.ts.',
      from: { path: '^src/(core/|api\\.ts$)' },
      to: { path: '^src/', pathNot: '^src/(core/|api\\.ts$)' },
    },
    {
      name: 'lookup-over-core',
      severity: 'error',
      comment: 'src/lookup/ imports only core and api.ts.',
      from: { path: '^src/lookup/' },
      to: { path: '^src/', pathNot: '^src/(lookup/|core/|api\\.ts$)' },
    },
    {
      name: 'store-over-lookup',
      severity: 'error',
      comment:
        'src/store/ imports only core, lookup and api.ts; Apps Script comes in through the Platform it is given.',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: '^src/(store/|lookup/|core/|api\\.ts$)' },
    },
    {
      name: 'features-downward',
      severity: 'error',
      comment:
        'A feature (formula, bulk, credits, settings, watch) imports the rooms below it (Apps Script through the Platform of src/core/ports.ts), not the sidebar, adapters or main.ts.',
      from: { path: rooms(FEATURES) },
      to: {
        path: '^src/',
        pathNot: `^src/(${FEATURES.join('|')}|lookup|store|core)/|^src/api\\.ts$`,
      },
    },
    ...FEATURES.map((feature) => ({
      name: `feature-edges-${feature}`,
      severity: 'error',
      comment: `src/${feature}/ imports another feature only along FEATURE_EDGES (each with its reason).`,
      from: { path: `^src/${feature}/` },
      to: {
        path: rooms(FEATURES.filter((other) => other !== feature)),
        pathNot: rooms(
          FEATURE_EDGES.filter(([from]) => from === feature)
            .map(([, to]) => to)
            .concat(['-none-']),
        ),
      },
    })),
    {
      name: 'watch-through-bulk-for-watch',
      severity: 'error',
      comment:
        'The watch reaches the bulk run through src/bulk/forWatch.ts only (plan a column, create a run, drive a slice, cancel): the rest of bulk/ may change without the watch.',
      from: { path: '^src/watch/' },
      to: { path: '^src/bulk/', pathNot: '^src/bulk/forWatch\\.ts$' },
    },
    {
      name: 'sidebar-over-core',
      severity: 'error',
      comment:
        'src/sidebar/ runs in the browser: it imports only api.ts and core (the server reaches it through api.ts).',
      from: { path: '^src/sidebar/' },
      to: { path: '^src/', pathNot: '^src/(sidebar/|core/|api\\.ts$|main\\.ts$)' },
    },
    {
      name: 'sidebar-types-of-main-only',
      severity: 'error',
      comment:
        "The sidebar's calls are typed from src/main.ts's exports (src/sidebar/types.ts): a type-only import, nothing of the server in the page.",
      from: { path: '^src/sidebar/', pathNot: '^src/sidebar/types\\.ts$' },
      to: { path: '^src/main\\.ts$' },
    },
    {
      name: 'sidebar-main-types-only',
      severity: 'error',
      comment: 'src/sidebar/types.ts may read src/main.ts for its types only (import type).',
      from: { path: '^src/sidebar/types\\.ts$' },
      to: { path: '^src/main\\.ts$', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
