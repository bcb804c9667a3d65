/**
 * The add-on menu built by onOpen/onInstall (dist/Code.js in the emulator), and the sidebar the menu opens.
 * No browser: these are the entry points that lead to the sidebar.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OWNER, startWorld, type World } from '../support/harness';

let world: World | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});

const code = readFileSync(join(__dirname, '..', '..', 'dist', 'Code.js'), 'utf8');

interface MenuItem {
  caption?: string;
  functionName?: string;
  separator?: boolean;
}

function lastMenu(w: World) {
  const menu = w.env.ui.menus[w.env.ui.menus.length - 1];
  return { ...menu, items: menu.items as MenuItem[] };
}

test.each(['onOpen', 'onInstall'])(
  '%s in AuthMode.NONE builds the add-on menu without properties or fetches',
  async (fn) => {
    world = await startWorld();
    const result = await world.env.execute(fn, [{ authMode: 'NONE' }], {
      ...world.as(OWNER),
      authMode: 'NONE',
    });
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    // In AuthMode.NONE the emulator refuses properties, fetches and triggers: none was even tried.
    expect(
      Object.keys(result.counts).filter((name) => /Properties|UrlFetch|ScriptApp|Cache/.test(name)),
    ).toEqual([]);
    expect(world.env.fetches).toEqual([]);

    const menu = lastMenu(world);
    expect(menu.addon).toBe(true);
    const items = menu.items.filter((item) => !item.separator);
    expect(items.map((item) => item.caption)).toEqual([
      'Find e-mails for the selected column',
      'Retry failed rows in the selected column',
      'Watch the selected column for new rows',
      'Refresh =FINDEMAIL cells',
      'Freeze =FINDEMAIL results in the selection',
      'Settings & API key',
      'Help',
    ]);
    // Every item calls a top-level function of the built script (Apps Script calls menu items by name).
    for (const item of items) expect(code).toMatch(new RegExp(`^function ${item.functionName}\\(`, 'm'));
  },
);

test('the menu opens the sidebar (settings view) and the help', async () => {
  world = await startWorld();
  await world.env.run('onOpen', [{ authMode: 'FULL' }], world.as());
  const items = lastMenu(world).items;
  const settings = items.find((item) => item.caption === 'Settings & API key');
  const help = items.find((item) => item.caption === 'Help');
  await world.env.run(settings?.functionName ?? '', [], world.as());
  const sidebar = world.env.ui.sidebars[world.env.ui.sidebars.length - 1];
  expect(sidebar.title).toBe('Profile Email Finder');
  expect(sidebar.html).toContain('<body data-view="settings">');
  expect(sidebar.html).toContain('id="api-key"');
  // The built sidebar is self-contained: no external script, stylesheet or font.
  expect(sidebar.html).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?(https?:)?\/\//i);
  expect(sidebar.html).not.toMatch(/@import|url\(\s*["']?(https?:)?\/\//i);

  // Only the view scriptlet: a `<?` or `?>` inside the inlined script would break Apps Script's template.
  const built = readFileSync(join(__dirname, '..', '..', 'dist', 'Sidebar.html'), 'utf8');
  expect(built.match(/<\?|\?>/g)).toEqual(['<?', '?>']);

  await world.env.run(help?.functionName ?? '', [], world.as());
  const dialog = world.env.ui.dialogs[world.env.ui.dialogs.length - 1];
  expect(dialog.title).toMatch(/help/i);
  // Whose key formulas use, said right (My Drive, a shared drive, a transfer), and one range formula recommended.
  expect(dialog.html).toMatch(
    /<b>the spreadsheet's owner<\/b>; in a shared drive, of the person who created the file;/,
  );
  expect(dialog.html).toMatch(/after a\s+transfer of ownership, of the new owner/);
  expect(dialog.html).toMatch(/one range formula\s+rather than a column of =FINDEMAIL\(A2\) cells/);
  expect(dialog.html).toContain('<b>Refresh =FINDEMAIL cells</b>');
  expect(dialog.html).not.toMatch(/recalculat/i);
});
