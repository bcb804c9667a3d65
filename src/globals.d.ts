/** Replaced by esbuild at build time with the configured base URL (scripts/build.ts). */
declare const __API_BASE_URL__: string;
/** Replaced by esbuild at build time with the manifest's urlFetchWhitelist (null: none, any URL). */
declare const __URL_ALLOWLIST__: string[] | null;
/** Replaced by esbuild at build time with PRIVACY_POLICY_URL, the published privacy policy ('' when none). */
declare const __PRIVACY_URL__: string;
