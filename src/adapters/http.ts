import type { RawAnswer, Transport } from '../core/ports';
import { buildKeyCheckRequest, buildLookupRequest, type HttpRequest } from '../lookup/contract';

type Response = GoogleAppsScript.URL_Fetch.HTTPResponse;

/** Headers are read only when they matter (a redirect, a 429). */
function rawAnswer(response: Response): RawAnswer {
  const status = response.getResponseCode();
  const answer: RawAnswer = { status, body: response.getContentText() };
  if (status === 429 || (status >= 300 && status < 400)) {
    // HTTP/1.1 servers send these names capitalised, HTTP/2 ones in lower case.
    const headers = response.getHeaders() as Record<string, string>;
    answer.headers = {
      location: headers.Location ?? headers.location,
      retryAfter: headers['Retry-After'] ?? headers['retry-after'],
      date: headers.Date ?? headers.date,
    };
  }
  return answer;
}

function fetchAll(requests: HttpRequest[]): ReturnType<Transport['fetchAll']> {
  try {
    const responses = UrlFetchApp.fetchAll(requests as GoogleAppsScript.URL_Fetch.URLFetchRequest[]);
    return { answers: responses.map(rawAnswer), at: Date.now() };
  } catch (error) {
    const thrown = error instanceof Error ? error.message : String(error);
    // Taken as refused before anything is sent (undocumented; the messages name the service, not a request).
    const sent = /too many times (for one day|in a short time): urlfetch/i.test(thrown) ? 0 : requests.length;
    return { thrown, sent, at: Date.now() };
  }
}

export const fetchTransport: Transport = {
  fetchAll: (urls, plan) =>
    urls.length === 0
      ? { answers: [], at: Date.now() }
      : fetchAll(urls.map((url) => buildLookupRequest(plan.endpoint, plan.apiKey, url))),
  checkKey(plan) {
    const answer = fetchAll([buildKeyCheckRequest(plan.endpoint, plan.apiKey)]);
    return 'answers' in answer ? answer.answers[0] : { thrown: answer.thrown };
  },
};
