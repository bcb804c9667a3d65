/**
 * Every scope of the built manifest (dist/appsscript.json, `npm run build`) is justified in docs/publish.md: one row
 * of its table (what it lets the add-on do, which feature needs it, what happens without it) and the same words in
 * its consent-screen text. A scope added to or removed from the manifest without its row fails here.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const publish = readFileSync(join(ROOT, 'docs/publish.md'), 'utf8');

interface ScopeRow {
  scope: string;
  does: string;
  feature: string;
  without: string;
}

/** The section of publish.md under `heading`, up to the next heading of the same or a higher level. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`docs/publish.md has no "${heading}"`);
  const level = heading.indexOf(' ');
  const rest = markdown.slice(start + heading.length + 1);
  const next = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return next < 0 ? rest : rest.slice(0, next);
}

function tableRows(text: string): ScopeRow[] {
  return text
    .split('\n')
    .filter((line) => /^\| `https:/.test(line))
    .map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      expect(cells).toHaveLength(4);
      const [scope, does, feature, without] = cells;
      return { scope: scope.replace(/`/g, ''), does, feature, without };
    });
}

const table = tableRows(section(publish, '## Every scope, and why'));
const consent = section(publish, '### The same, for the consent screen');
const consentLines = consent.split('\n').filter((line) => line.startsWith('- `https:'));

function builtScopes(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'dist/appsscript.json'), 'utf8')) as {
    oauthScopes?: string[];
  };
  return manifest.oauthScopes ?? [];
}

describe('the scopes in docs/publish.md', () => {
  it('has one row for each scope of the built manifest, no more, no less', () => {
    const scopes = builtScopes();
    expect(scopes.length).toBeGreaterThan(0);
    expect(table.map((row) => row.scope).sort()).toEqual([...scopes].sort());
    expect(new Set(table.map((row) => row.scope)).size).toBe(table.length);
  });

  it('says for each what it allows, which feature needs it and what happens without it', () => {
    for (const row of table) {
      for (const text of [row.does, row.feature, row.without]) expect(text.length).toBeGreaterThan(15);
    }
  });

  it('gives the consent screen the same words, one line per scope', () => {
    expect(consentLines).toHaveLength(table.length);
    for (const row of table) {
      expect(consentLines).toContain(
        `- \`${row.scope}\`: ${row.does}. Needed for ${row.feature}. Without it, ${row.without}.`,
      );
    }
  });
});
