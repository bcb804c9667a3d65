/**
 * The project's script files: Apps Script loads every script file of a project (clasp pushes `.js` and `.gs` as
 * script files, `.html` as HTML files) into each execution's global scope; an HTML file is only read by HtmlService.
 * The build writes one script file, Code.js; it is loaded first, any other in name order.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const SCRIPT_FILE = /\.(js|gs)$/;

export function scriptFiles(distDir: string): string[] {
  const names = readdirSync(distDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && SCRIPT_FILE.test(entry.name))
    .map((entry) => entry.name)
    .sort((a, b) => (a === 'Code.js' ? -1 : b === 'Code.js' ? 1 : a.localeCompare(b)));
  return names.map((name) => join(distDir, name));
}
