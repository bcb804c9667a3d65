/** An execution without a spreadsheet (getDocumentProperties gives null): the error names what to do in Sheets. */
import { appsScript } from '../../src/adapters/platform';

const global = globalThis as unknown as { PropertiesService?: unknown };

afterEach(() => {
  delete global.PropertiesService;
});

it('says to open the spreadsheet and use the add-on menu there when the execution has no document', () => {
  global.PropertiesService = { getDocumentProperties: () => null };
  expect(() => appsScript.documentProperties()).toThrow(
    'This works only inside a spreadsheet: open the spreadsheet, then use Extensions › Profile Email Finder there again.',
  );
});
