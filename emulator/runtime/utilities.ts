/** Utilities, Logger, console and ContentService: answered in the worker (no RPC), counted for the host. */
import { Blob, bytesOf } from './blob';
import { count, describeArgs, fail, host, importValue, isDate } from './core';

const DigestAlgorithm = {
  MD2: 'MD2',
  MD5: 'MD5',
  SHA_1: 'SHA_1',
  SHA_256: 'SHA_256',
  SHA_384: 'SHA_384',
  SHA_512: 'SHA_512',
};
const MacAlgorithm = {
  HMAC_MD5: 'MD5',
  HMAC_SHA_1: 'SHA_1',
  HMAC_SHA_256: 'SHA_256',
  HMAC_SHA_384: 'SHA_384',
  HMAC_SHA_512: 'SHA_512',
};
const Charset = { UTF_8: 'UTF-8', US_ASCII: 'US-ASCII' };
// https://developers.google.com/apps-script/reference/utilities/utilities#sleepmilliseconds: at most 300000.
const MAX_SLEEP_MS = 300000;

export const Utilities = {
  DigestAlgorithm,
  MacAlgorithm,
  Charset,
  sleep(milliseconds: unknown): void {
    count('Utilities.sleep');
    host.sleep(Math.max(0, Math.min(MAX_SLEEP_MS, Number(milliseconds) || 0)));
  },
  computeDigest(algorithm: string, value: unknown) {
    count('Utilities.computeDigest');
    const digest = host.digest(algorithm, bytesOf(value));
    if (!digest) fail(`Invalid argument: algorithm`);
    return importValue(digest);
  },
  computeHmacSignature(algorithm: string, value: unknown, key: unknown) {
    count('Utilities.computeHmacSignature');
    const digest = host.digest(algorithm, bytesOf(value), bytesOf(key));
    if (!digest) fail(`Invalid argument: algorithm`);
    return importValue(digest);
  },
  computeHmacSha256Signature(value: unknown, key: unknown) {
    count('Utilities.computeHmacSha256Signature');
    return importValue(host.digest('SHA_256', bytesOf(value), bytesOf(key)));
  },
  base64Encode(data: unknown): string {
    count('Utilities.base64Encode');
    return host.base64Encode(bytesOf(data), false);
  },
  base64EncodeWebSafe(data: unknown): string {
    count('Utilities.base64EncodeWebSafe');
    return host.base64Encode(bytesOf(data), true);
  },
  base64Decode(text: string) {
    count('Utilities.base64Decode');
    const bytes = host.base64Decode(text, false);
    if (!bytes) fail('Could not decode string.');
    return importValue(bytes);
  },
  base64DecodeWebSafe(text: string) {
    count('Utilities.base64DecodeWebSafe');
    const bytes = host.base64Decode(text, true);
    if (!bytes) fail('Could not decode string.');
    return importValue(bytes);
  },
  newBlob(data?: unknown, contentType?: string, name?: string): Blob {
    count('Utilities.newBlob');
    const bytes = data === undefined ? [] : (importValue(host.bytes(bytesOf(data))) as number[]);
    return new Blob(bytes, contentType, name);
  },
  getUuid() {
    count('Utilities.getUuid');
    return host.uuid();
  },
  formatDate(date: unknown, timeZone: unknown, format: unknown): string {
    count('Utilities.formatDate');
    if (!isDate(date))
      fail(
        `The parameters (${describeArgs([date])},String,String) don't match the method signature for Utilities.formatDate.`,
      );
    try {
      return host.formatDate(date.getTime(), String(timeZone), String(format));
    } catch {
      return host.formatDate(date.getTime(), 'Etc/UTC', String(format));
    }
  },
  formatString(template: unknown, ...args: unknown[]): string {
    count('Utilities.formatString');
    return host.format([template, ...args]);
  },
  jsonStringify(value: unknown): string {
    return JSON.stringify(value);
  },
  jsonParse(text: string): unknown {
    return JSON.parse(text);
  },
};

function logged(level: string, message: string): void {
  host.log(level, message);
}

interface LoggerApi {
  log(data: unknown, ...values: unknown[]): LoggerApi;
  getLog(): string;
  clear(): void;
}

export const Logger: LoggerApi = {
  log(data: unknown, ...values: unknown[]): LoggerApi {
    let message: string | undefined;
    if (values.length > 0 && typeof data === 'string') {
      let i = 0;
      message = data.replace(/%[sdf]/g, (token: string) => (i < values.length ? String(values[i++]) : token));
    } else if (typeof data === 'string') message = data;
    else {
      try {
        message = JSON.stringify(data);
      } catch {
        message = String(data);
      }
      if (message === undefined) message = String(data);
    }
    logged('info', message ?? String(data));
    return Logger;
  },
  getLog(): string {
    return '';
  },
  clear(): void {},
};

export const consoleObject: Record<string, (...args: unknown[]) => void> = {};
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  consoleObject[level] = (...args) => logged(level === 'log' ? 'info' : level, host.format(args));
}
consoleObject.time = () => {};
consoleObject.timeEnd = () => {};

export const ContentService = {
  MimeType: {
    JSON: 'application/json',
    TEXT: 'text/plain',
    CSV: 'text/csv',
    JAVASCRIPT: 'application/javascript',
  },
  createTextOutput(content?: unknown) {
    count('ContentService.createTextOutput');
    const output = {
      _content: content === undefined ? '' : String(content),
      _type: 'text/plain',
      getContent: () => output._content,
      setContent: (text: unknown) => {
        output._content = String(text);
        return output;
      },
      setMimeType: (type: string) => {
        output._type = type;
        return output;
      },
      getMimeType: () => output._type,
    };
    return output;
  },
};
