/** Replaced by esbuild at build time with the configured base URL (scripts/build.mjs). */
declare const __API_BASE_URL__: string;
