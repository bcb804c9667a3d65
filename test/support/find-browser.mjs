// The Chrome or Chromium the browser tests drive (with playwright-core, which brings no browser of its own):
// CHROME_PATH first, then the installations chrome-launcher's finder knows (Chrome on macOS, Windows and Linux;
// google-chrome and chromium on Linux's PATH and .desktop files), then Chromium's usual places on macOS and Windows,
// which that finder does not look at. ESM because chrome-launcher is ESM only; Jest's globalSetup imports it
// (test/support/browser-setup.mjs), and `node test/support/find-browser.mjs` prints the path (or the message).
import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Launcher } from 'chrome-launcher';

const INSTALL_HELP = [
  'Install one, or point CHROME_PATH at its executable:',
  '  Debian:        sudo apt-get install chromium',
  '  Ubuntu:        sudo snap install chromium   (or Google Chrome)',
  '  macOS:         brew install --cask google-chrome   (or chromium)',
  '  Windows:       winget install Google.Chrome',
  '  anywhere:      CHROME_PATH=/path/to/chrome npm test',
].join('\n');
export const NO_BROWSER_MESSAGE = `The browser tests need Chrome or Chromium, and none was found.\n${INSTALL_HELP}`;

function isExecutableFile(file) {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Chromium builds installed by hand or by Homebrew/installers, which chrome-launcher's finder skips. */
function chromiumPlaces() {
  if (process.platform === 'darwin')
    return ['/Applications', join(homedir(), 'Applications')].map((dir) =>
      join(dir, 'Chromium.app', 'Contents', 'MacOS', 'Chromium'),
    );
  if (process.platform === 'win32')
    return [process.env.LOCALAPPDATA, process.env.PROGRAMFILES, process.env['PROGRAMFILES(X86)']]
      .filter(Boolean)
      .map((dir) => join(dir, 'Chromium', 'Application', 'chrome.exe'));
  return ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium'];
}

function launcherInstallations() {
  try {
    return Launcher.getInstallations();
  } catch {
    // Throws when it finds none on Linux, and on platforms it does not support.
    return [];
  }
}

/** The browser's executable and where it was found; throws NO_BROWSER_MESSAGE when there is none. */
export function findBrowser() {
  const configured = process.env.CHROME_PATH;
  if (configured) {
    if (isExecutableFile(configured)) return { path: configured, source: 'CHROME_PATH' };
    throw new Error(
      `The browser tests' CHROME_PATH, "${configured}", is not an executable file.\n${INSTALL_HELP}`,
    );
  }
  const found = launcherInstallations().find(isExecutableFile);
  if (found) return { path: found, source: 'installed Chrome/Chromium' };
  const chromium = chromiumPlaces().find(isExecutableFile);
  if (chromium) return { path: chromium, source: 'installed Chromium' };
  throw new Error(NO_BROWSER_MESSAGE);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    console.log(findBrowser().path);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
