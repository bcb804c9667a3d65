/**
 * The README stays short, and every relative link or image in the project's Markdown resolves
 * (the file exists; an anchor names a heading of that file, as GitHub spells heading anchors).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const README_MAX_LINES = 150;

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const FILES = [
  join(ROOT, 'README.md'),
  ...markdownUnder(join(ROOT, 'docs')),
  join(ROOT, 'bench/README.md'),
  join(ROOT, 'emulator/README.md'),
];

/** The text without fenced code blocks and code spans, where brackets are not links. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Targets of inline links and images (`[text](target)`, `![alt](target "title")`) and reference definitions. */
function linkTargets(markdown: string): string[] {
  const text = withoutCode(markdown);
  const inline = [...text.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (match) => match[1],
  );
  const references = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1]);
  return [...inline, ...references];
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = match[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with each relative link of `file` (empty when every one resolves). */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(readFileSync(file, 'utf8'))) {
    if (isExternal(target)) continue;
    const [path, anchor] = target.split('#');
    const resolved = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
    const where = `${relative(ROOT, file)}: ${target}`;
    if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
    else if (anchor && !statSync(resolved).isDirectory()) {
      if (!headingAnchors(readFileSync(resolved, 'utf8')).has(anchor))
        broken.push(`${where} (no such heading)`);
    }
  }
  return broken;
}

describe('the documentation', () => {
  it('has a README of at most 150 lines', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n');
    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('opens with the title, the description and the two commands', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const firstScreen = readme.split('\n').slice(0, 15).join('\n');
    expect(firstScreen).toMatch(/^# Profile Email Finder for Sheets\n/);
    expect(firstScreen).toContain('npm install && npm start');
    expect(firstScreen).toContain('npm test');
  });

  it.each(FILES.map((file) => [relative(ROOT, file), file]))(
    '%s: every relative link resolves',
    (_name, file) => {
      expect(existsSync(file)).toBe(true);
      expect(brokenLinks(file)).toEqual([]);
    },
  );

  it('finds links, images and anchors the way a reader follows them', () => {
    const sample = [
      '# A title: with `code`',
      '## A title: with `code`',
      'See [the guide](docs/user-guide.md#using-it), ![a picture](docs/x.png "title") and `[not](a-link.md)`.',
      '```',
      '[not a link either](nowhere.md)',
      '```',
      '[ref]: bench/README.md',
    ].join('\n');
    expect(linkTargets(sample)).toEqual(['docs/user-guide.md#using-it', 'docs/x.png', 'bench/README.md']);
    expect([...headingAnchors(sample)]).toEqual(['a-title-with-code', 'a-title-with-code-1']);
  });
});
