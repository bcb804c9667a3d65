/**
 * The sample sheet of a fresh playground: a header and profile URLs with what a real list holds, following the
 * sandbox's rules (sandbox/profiles.ts): blank rows, duplicates (also written differently), an entry that is no URL,
 * a profile without a name (`/in/12345`: 422), one without a domain (422 with the name) and one without an address.
 */
export const SAMPLE_SHEET_NAME = 'Leads';

export const SAMPLE_URLS: string[] = [
  'https://www.network.com/in/jane-doe',
  'https://www.network.com/in/john-smith',
  'https://www.network.com/in/maria-garcia',
  '',
  'https://www.network.com/in/li-wei',
  'https://www.network.com/in/jane-doe',
  'not a url',
  'https://www.network.com/in/12345',
  'https://www.network.com/in/ahmed-khan',
  'https://www.network.com/in/sophie-martin-noemail',
  'http://network.com/in/john-smith/',
  'https://www.network.com/in/olivia-brown',
  '',
  'https://www.network.com/in/lucas-silva',
  'https://www.network.com/in/emma-wilson',
  'https://www.network.com/in/noah-jones-nodomain',
  'https://www.network.com/in/chloe-dubois',
  'https://www.network.com/in/yuki-tanaka',
  'https://www.network.com/in/maria-garcia',
  'https://www.network.com/in/ben-miller',
  'https://www.network.com/in/ana-souza',
];

/** Column A: the header, then the URLs. */
export function sampleColumn(): string[][] {
  return [['Profile URL'], ...SAMPLE_URLS.map((url) => [url])];
}
