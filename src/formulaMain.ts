/**
 * The light entry points: what a custom-function call and the simple triggers run. scripts/build.ts bundles this
 * file into dist/Code.js, which Apps Script loads on every execution, custom-function calls included; every other
 * entry point of src/main.ts runs in the server bundle (dist/Server.html, the whole of src/main.ts), loaded only by
 * the entry points that need it. The build marks an entry point of src/main.ts light when this file exports it.
 */
export { FINDEMAIL, onEdit, onInstall, onOpen } from './main';
