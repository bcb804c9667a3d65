/**
 * docs/privacy.md is ready to publish: the values only a publisher knows are placeholders in one table at the top
 * (publisher, contact, effective date, the e-mail service and its policy), and the people looked up — who do not
 * use the add-on — have their own section: what is stored about them, for how long, how it is removed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CREDITS_SHEET, RESULTS_SHEET } from '../../src/core/propertyNames';

const privacy = readFileSync(join(__dirname, '..', '..', 'docs', 'privacy.md'), 'utf8');

/** The text of the section under `heading`, up to the next heading of its level. */
function section(heading: string): string {
  const start = privacy.indexOf(`\n## ${heading}\n`);
  if (start < 0) return '';
  const end = privacy.indexOf('\n## ', start + 1);
  return privacy.slice(start, end < 0 ? undefined : end);
}

test('the publisher fills in placeholders at the top: publisher, contact, effective date, the service and its policy', () => {
  const top = privacy.slice(0, privacy.indexOf('\n## '));
  for (const placeholder of [
    '[PUBLISHER',
    '[CONTACT',
    '[EFFECTIVE DATE]',
    '[SERVICE',
    '[SERVICE POLICY URL]',
  ])
    expect(top).toContain(placeholder);
});

test('the people looked up: what is stored about them and where, for how long, how it is removed', () => {
  const people = section('The people whose addresses are looked up');
  expect(people).toMatch(/\*\*Stored about them, and where\*\*/);
  expect(people).toMatch(/\*\*For how long\*\*/);
  expect(people).toMatch(/\*\*How it is removed\*\*/);
  for (const sheet of [RESULTS_SHEET, CREDITS_SHEET]) expect(people).toContain(sheet);
  expect(people).toContain("Remove this spreadsheet's add-on data");
});
