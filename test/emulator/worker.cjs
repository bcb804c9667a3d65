'use strict';
/**
 * The worker side of the Apps Script emulator. Plain JavaScript, so that it loads the same under jest and tsx.
 *
 * Each execution gets a fresh vm context (a new global scope, as in Apps Script), the service globals installed by
 * `installRuntime` (whose source is evaluated inside that context, so every object and error it makes belongs to
 * the context's realm), then dist/Code.js, then the named function is called. Every service call is a synchronous
 * RPC to the host: post on a MessagePort, Atomics.wait on a SharedArrayBuffer, read the reply with
 * receiveMessageOnPort. The host may kill this thread at any point (time limit).
 */
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const vm = require('node:vm');
const fs = require('node:fs');
const util = require('node:util');
const crypto = require('node:crypto');
const { performance } = require('node:perf_hooks');

const { rpcPort, flagBuffer } = workerData;
const flag = new Int32Array(flagBuffer);
const sleeper = new Int32Array(new SharedArrayBuffer(4));

let clockBase = Date.now();
let clockMono = performance.now();
let pendingCounts = {};
let currentExec = null;

function envNow() {
  return Math.floor(clockBase + (performance.now() - clockMono));
}

function syncClock(now) {
  clockBase = now;
  clockMono = performance.now();
}

function takeCounts() {
  const counts = pendingCounts;
  pendingCounts = {};
  return counts;
}

function rpc(op, args) {
  Atomics.store(flag, 0, 0);
  rpcPort.postMessage({ execId: currentExec, op, args, counts: takeCounts() });
  for (;;) {
    Atomics.wait(flag, 0, 0, 1000);
    const received = receiveMessageOnPort(rpcPort);
    if (received) {
      syncClock(received.message.now);
      return received.message;
    }
    // Not answered yet (a lock wait, an HTTP request): keep waiting; the host kills this thread at the deadline.
  }
}

function toSigned(bytes) {
  return Array.from(bytes, (b) => (b > 127 ? b - 256 : b));
}

function toBuffer(data) {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (data instanceof Uint8Array) return Buffer.from(data);
  if (Array.isArray(data)) return Buffer.from(data.map((b) => Number(b) & 0xff));
  return Buffer.from(String(data), 'utf8');
}

const DIGESTS = { MD5: 'md5', SHA_1: 'sha1', SHA_256: 'sha256', SHA_384: 'sha384', SHA_512: 'sha512' };

function pad(n, width = 2) {
  return String(n).padStart(width, '0');
}

/** Utilities.formatDate: the common SimpleDateFormat letters. */
function formatDate(ms, timeZone, pattern) {
  const date = new Date(ms);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'long',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  const offset = (parts.timeZoneName || 'GMT').replace('GMT', '') || '+00:00';
  const months = [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ];
  const hour = Number(parts.hour) % 24;
  const values = {
    yyyy: parts.year,
    yy: String(parts.year).slice(-2),
    MMMM: months[Number(parts.month) - 1],
    MMM: months[Number(parts.month) - 1].slice(0, 3),
    MM: pad(parts.month),
    M: String(Number(parts.month)),
    dd: pad(parts.day),
    d: String(Number(parts.day)),
    HH: pad(hour),
    H: String(hour),
    hh: pad(hour % 12 || 12),
    h: String(hour % 12 || 12),
    mm: pad(parts.minute),
    m: String(Number(parts.minute)),
    ss: pad(parts.second),
    s: String(Number(parts.second)),
    SSS: pad(date.getUTCMilliseconds(), 3),
    a: hour < 12 ? 'AM' : 'PM',
    EEEE: parts.weekday,
    EEE: String(parts.weekday).slice(0, 3),
    XXX: offset === '+00:00' ? 'Z' : offset,
    Z: offset.replace(':', ''),
    z: timeZone === 'Etc/UTC' || timeZone === 'UTC' ? 'UTC' : `GMT${offset}`,
  };
  return String(pattern).replace(
    /'([^']*)'|yyyy|yy|MMMM|MMM|MM|M|dd|d|HH|H|hh|h|mm|m|ss|s|SSS|a|EEEE|EEE|XXX|Z|z/g,
    (token, quoted) => (quoted !== undefined ? quoted || "'" : values[token]),
  );
}

/** Worker-realm helpers the runtime (inside the context) may call. Their results are imported into the context. */
const bridge = {
  rpc,
  now: envNow,
  count(name) {
    pendingCounts[name] = (pendingCounts[name] || 0) + 1;
  },
  log(level, message) {
    parentPort.postMessage({ type: 'log', execId: currentExec, level, message, time: envNow() });
  },
  sleep(ms) {
    Atomics.wait(sleeper, 0, 0, ms);
  },
  format(args) {
    return util.format(...args);
  },
  digest(algorithm, data, hmacKey) {
    const name = DIGESTS[algorithm];
    if (!name) return null;
    const hash = hmacKey === undefined ? crypto.createHash(name) : crypto.createHmac(name, toBuffer(hmacKey));
    return toSigned(hash.update(toBuffer(data)).digest());
  },
  base64Encode(data, webSafe) {
    const text = toBuffer(data).toString('base64');
    return webSafe ? text.replace(/\+/g, '-').replace(/\//g, '_') : text;
  },
  base64Decode(text, webSafe) {
    const normal = webSafe ? String(text).replace(/-/g, '+').replace(/_/g, '/') : String(text);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal.replace(/\s/g, ''))) return null;
    return toSigned(Buffer.from(normal, 'base64'));
  },
  bytes(data) {
    return toSigned(toBuffer(data));
  },
  text(data, charset) {
    const encoding = /^(us-ascii|ascii)$/i.test(charset || '') ? 'latin1' : 'utf8';
    return toBuffer(data).toString(encoding);
  },
  uuid() {
    return crypto.randomUUID();
  },
  formatDate,
};

/**
 * Installs the Apps Script globals in the current context. Evaluated from its source inside each fresh context:
 * it must not use anything from this module's scope, only `host` (the bridge).
 */
function installRuntime(host, exec) {
  const global = globalThis;
  const RealDate = Date;

  // Date follows the environment's clock (env.advanceClock, the `now` option).
  function EmulatedDate(...args) {
    if (!new.target) return new RealDate(host.now()).toString();
    if (args.length === 0) return Reflect.construct(RealDate, [host.now()], new.target);
    return Reflect.construct(RealDate, args, new.target);
  }
  EmulatedDate.prototype = RealDate.prototype;
  Object.setPrototypeOf(EmulatedDate, RealDate);
  EmulatedDate.now = () => host.now();
  EmulatedDate.parse = RealDate.parse;
  EmulatedDate.UTC = RealDate.UTC;
  Object.defineProperty(RealDate.prototype, 'constructor', {
    value: EmulatedDate,
    writable: true,
    configurable: true,
  });
  global.Date = EmulatedDate;

  const isDate = (v) => Object.prototype.toString.call(v) === '[object Date]';

  /** Copies data from the worker's realm into this one (arrays, plain objects, dates). */
  function importValue(v) {
    if (v === null || typeof v !== 'object') return v;
    if (v instanceof Uint8Array || (v?.constructor && v.constructor.name === 'Uint8Array')) return v;
    if (Array.isArray(v)) {
      const out = [];
      for (let i = 0; i < v.length; i++) out.push(importValue(v[i]));
      return out;
    }
    if (isDate(v)) return new RealDate(v.getTime());
    const out = {};
    for (const key of Object.keys(v)) out[key] = importValue(v[key]);
    return out;
  }

  /** Data only, for the host: functions dropped, service objects described. */
  function exportValue(v, depth = 0) {
    if (v === undefined || v === null || typeof v === 'function' || typeof v === 'symbol')
      return v === null ? null : undefined;
    if (typeof v === 'bigint') return Number(v);
    if (typeof v !== 'object') return v;
    if (depth > 50) return undefined;
    if (isDate(v)) return new RealDate(v.getTime());
    if (v instanceof HtmlOutput) return v._describe();
    if (typeof v.getA1Notation === 'function' && v._d) return { type: 'Range', a1: v.getA1Notation() };
    if (Array.isArray(v)) return Array.from(v, (item) => exportValue(item, depth + 1) ?? null);
    const out = {};
    for (const key of Object.keys(v)) {
      const item = exportValue(v[key], depth + 1);
      if (item !== undefined) out[key] = item;
    }
    return out;
  }

  function fail(message, name = 'Exception') {
    const error = new Error(message);
    error.name = name;
    throw error;
  }

  function call(op, args = []) {
    const reply = host.rpc(op, exportValue(args));
    if (!reply.ok) fail(reply.message, reply.name || 'Exception');
    return importValue(reply.value);
  }

  const count = (name) => host.count(name);

  function columnName(column) {
    let name = '';
    let n = column;
    while (n > 0) {
      const rest = (n - 1) % 26;
      name = String.fromCharCode(65 + rest) + name;
      n = Math.floor((n - 1) / 26);
    }
    return name;
  }

  // ---------------------------------------------------------------- Spreadsheet service

  /** Methods that only forward to the host: getters return its value, the others return the object (chaining). */
  function delegate(type, getters, chaining) {
    for (const name of getters) {
      type.prototype[name] = function () {
        return this._call(name);
      };
    }
    for (const name of chaining) {
      type.prototype[name] = function (...args) {
        this._call(name, ...args);
        return this;
      };
    }
  }

  class Range {
    constructor(d) {
      this._d = d;
    }
    _call(method, ...args) {
      return call(`Range.${method}`, [this._d, ...args]);
    }
    setValues(values) {
      if (!Array.isArray(values) || !values.every((row) => Array.isArray(row))) {
        fail(
          `The parameters (${describeArgs([values])}) don't match the method signature for SpreadsheetApp.Range.setValues.`,
        );
      }
      this._call('setValues', values);
      return this;
    }
    offset(rowOffset, columnOffset, numRows, numColumns) {
      return new Range(this._call('offset', rowOffset, columnOffset, numRows, numColumns));
    }
    getCell(row, column) {
      count('Range.getCell');
      const d = this._d;
      if (row < 1 || column < 1 || row > d.numRows || column > d.numCols) fail('Cell reference out of range');
      return new Range({ ...d, row: d.row + row - 1, col: d.col + column - 1, numRows: 1, numCols: 1 });
    }
    getRow() {
      count('Range.getRow');
      return this._d.row;
    }
    getRowIndex() {
      count('Range.getRowIndex');
      return this._d.row;
    }
    getColumn() {
      count('Range.getColumn');
      return this._d.col;
    }
    getColumnIndex() {
      count('Range.getColumnIndex');
      return this._d.col;
    }
    getNumRows() {
      count('Range.getNumRows');
      return this._d.numRows;
    }
    getNumColumns() {
      count('Range.getNumColumns');
      return this._d.numCols;
    }
    getLastRow() {
      count('Range.getLastRow');
      return this._d.row + this._d.numRows - 1;
    }
    getLastColumn() {
      count('Range.getLastColumn');
      return this._d.col + this._d.numCols - 1;
    }
    getHeight() {
      return this.getNumRows();
    }
    getWidth() {
      return this.getNumColumns();
    }
    getA1Notation() {
      count('Range.getA1Notation');
      const d = this._d;
      const start = `${columnName(d.col)}${d.row}`;
      if (d.numRows === 1 && d.numCols === 1) return start;
      return `${start}:${columnName(d.col + d.numCols - 1)}${d.row + d.numRows - 1}`;
    }
    getSheet() {
      count('Range.getSheet');
      return new Sheet({ ss: this._d.ss, sheet: this._d.sheet });
    }
    getGridId() {
      count('Range.getGridId');
      return this._d.sheet;
    }
    toString() {
      return 'Range';
    }
  }
  delegate(
    Range,
    [
      'getValues',
      'getValue',
      'getDisplayValues',
      'getDisplayValue',
      'getFormulas',
      'getFormula',
      'getNumberFormats',
      'getNumberFormat',
      'getNotes',
      'getNote',
      'isBlank',
    ],
    [
      'clearContent',
      'clear',
      'clearFormat',
      'activate',
      'setValue',
      'setFormulas',
      'setFormula',
      'setNumberFormat',
      'setNumberFormats',
      'setNotes',
      'setNote',
    ],
  );

  // Formatting: no visible effect in the emulator, but still writes (refused in custom functions).
  for (const method of [
    'setBackground',
    'setFontWeight',
    'setFontColor',
    'setFontStyle',
    'setFontSize',
    'setFontFamily',
    'setHorizontalAlignment',
    'setVerticalAlignment',
    'setWrap',
    'setWrapStrategy',
    'setBorder',
    'setDataValidation',
    'setTextStyle',
  ]) {
    Range.prototype[method] = function (...args) {
      this._call(method, ...args);
      return this;
    };
  }

  function describeArgs(args) {
    return args
      .map((a) =>
        Array.isArray(a)
          ? Array.isArray(a[0])
            ? 'Object[][]'
            : 'Object[]'
          : a === null
            ? 'null'
            : typeof a === 'string'
              ? 'String'
              : typeof a === 'number'
                ? 'number'
                : 'Object',
      )
      .join(',');
  }

  class RangeList {
    constructor(ranges) {
      this._ranges = ranges;
    }
    _call(method, ...args) {
      return call(`RangeList.${method}`, [this._ranges, ...args]);
    }
    getRanges() {
      count('RangeList.getRanges');
      return this._ranges.map((d) => new Range(d));
    }
  }
  delegate(
    RangeList,
    [],
    ['clearContent', 'clear', 'activate', 'setNumberFormat', 'setValue', 'setFontWeight', 'setBackground'],
  );

  class Sheet {
    constructor(d) {
      this._d = d;
    }
    _call(method, ...args) {
      return call(`Sheet.${method}`, [this._d, ...args]);
    }
    getSheetName() {
      return this._call('getName');
    }
    getSheetId() {
      count('Sheet.getSheetId');
      return this._d.sheet;
    }
    getParent() {
      count('Sheet.getParent');
      return new Spreadsheet({ ss: this._d.ss });
    }
    getRange(a, b, c, d) {
      if (typeof a === 'string') return new Range(this._call('getRange', a));
      return new Range(this._call('getRange', a, b, c, d));
    }
    getDataRange() {
      return new Range(this._call('getDataRange'));
    }
    getRangeList(a1s) {
      return new RangeList(this._call('getRangeList', Array.from(a1s, String)));
    }
    setFrozenRows(rows) {
      this._call('setFrozenRows', rows);
    }
    getActiveRange() {
      const d = this._call('getActiveRange');
      return d ? new Range(d) : null;
    }
    sort(column, ascending) {
      this._call('sort', column, ascending);
      return this;
    }
    toString() {
      return 'Sheet';
    }
  }
  delegate(
    Sheet,
    ['getName', 'getIndex', 'getLastRow', 'getLastColumn', 'getMaxRows', 'getMaxColumns', 'getFrozenRows'],
    ['activate', 'clear', 'clearContents', 'setName', 'appendRow'],
  );

  for (const method of [
    'insertColumnsAfter',
    'insertColumnsBefore',
    'insertColumns',
    'insertColumnAfter',
    'insertColumnBefore',
    'insertRowsAfter',
    'insertRowsBefore',
    'insertRows',
    'insertRowAfter',
    'insertRowBefore',
    'deleteRows',
    'deleteRow',
    'deleteColumns',
    'deleteColumn',
  ]) {
    Sheet.prototype[method] = function (...args) {
      this._call(method, ...args);
      return this;
    };
  }
  for (const method of [
    'setColumnWidth',
    'setColumnWidths',
    'autoResizeColumns',
    'autoResizeColumn',
    'hideColumns',
    'showColumns',
    'setRowHeight',
  ]) {
    Sheet.prototype[method] = function (...args) {
      this._call(method, ...args);
      return this;
    };
  }

  class Spreadsheet {
    constructor(d) {
      this._d = d;
    }
    _call(method, ...args) {
      return call(`Spreadsheet.${method}`, [this._d, ...args]);
    }
    getId() {
      count('Spreadsheet.getId');
      return this._d.ss;
    }
    getUrl() {
      count('Spreadsheet.getUrl');
      return `https://docs.google.com/spreadsheets/d/${this._d.ss}/edit`;
    }
    getSheets() {
      return this._call('getSheets').map((d) => new Sheet(d));
    }
    getSheetByName(name) {
      const d = this._call('getSheetByName', name);
      return d ? new Sheet(d) : null;
    }
    getActiveSheet() {
      return new Sheet(this._call('getActiveSheet'));
    }
    setActiveSheet(sheet) {
      this._call('setActiveSheet', sheet._d);
      return sheet;
    }
    getActiveRange() {
      const d = this._call('getActiveRange');
      return d ? new Range(d) : null;
    }
    getActiveCell() {
      const d = this._call('getActiveCell');
      return d ? new Range(d) : null;
    }
    getSelection() {
      count('Spreadsheet.getSelection');
      return new Selection(this);
    }
    getRange(a1) {
      return new Range(this._call('getRange', a1));
    }
    getRangeList(a1s) {
      return new RangeList(this._call('getRangeList', a1s));
    }
    insertSheet(name) {
      return new Sheet(this._call('insertSheet', name));
    }
    toast(message, title, timeoutSeconds) {
      this._call(
        'toast',
        message === undefined ? '' : String(message),
        title === undefined ? '' : String(title),
        timeoutSeconds,
      );
    }
    getSpreadsheetLocale() {
      count('Spreadsheet.getSpreadsheetLocale');
      return 'en_US';
    }
    getOwner() {
      const email = this._call('getOwner');
      return makeUser(email);
    }
    toString() {
      return 'Spreadsheet';
    }
  }
  delegate(Spreadsheet, ['getName', 'getNumSheets', 'getSpreadsheetTimeZone'], []);

  class Selection {
    constructor(ss) {
      this._ss = ss;
    }
    getActiveRange() {
      return this._ss.getActiveRange();
    }
    getCurrentCell() {
      return this._ss.getActiveCell();
    }
    getActiveSheet() {
      return this._ss.getActiveSheet();
    }
    getActiveRangeList() {
      const range = this._ss.getActiveRange();
      return range ? new RangeList([range._d]) : null;
    }
  }

  // ---------------------------------------------------------------- Ui and HtmlService

  const Button = { OK: 'OK', CANCEL: 'CANCEL', YES: 'YES', NO: 'NO', CLOSE: 'CLOSE' };
  const ButtonSet = { OK: 'OK', OK_CANCEL: 'OK_CANCEL', YES_NO: 'YES_NO', YES_NO_CANCEL: 'YES_NO_CANCEL' };

  class Menu {
    constructor(title, addon) {
      this._title = title;
      this._addon = addon;
      this._items = [];
    }
    addItem(caption, functionName) {
      count('Menu.addItem');
      this._items.push({ caption: String(caption), functionName: String(functionName) });
      return this;
    }
    addSeparator() {
      count('Menu.addSeparator');
      this._items.push({ separator: true });
      return this;
    }
    addSubMenu(menu) {
      count('Menu.addSubMenu');
      this._items.push({ caption: menu._title, submenu: menu._items });
      return this;
    }
    addToUi() {
      call('Ui.addMenu', [{ title: this._title, addon: this._addon, items: this._items }]);
    }
  }

  function outputData(output, title) {
    if (!(output instanceof HtmlOutput)) fail('Invalid argument: userInterface');
    return output._describe(title);
  }

  const Ui = {
    Button,
    ButtonSet,
    createAddonMenu() {
      count('Ui.createAddonMenu');
      return new Menu(undefined, true);
    },
    createMenu(caption) {
      count('Ui.createMenu');
      return new Menu(String(caption), false);
    },
    alert(a, b, c) {
      const args =
        b === undefined
          ? { prompt: String(a) }
          : c === undefined
            ? { prompt: String(a), buttons: b }
            : { title: String(a), prompt: String(b), buttons: c };
      return call('Ui.alert', [args]);
    },
    prompt(a, b, c) {
      const args =
        b === undefined
          ? { prompt: String(a) }
          : c === undefined
            ? { prompt: String(a), buttons: b }
            : { title: String(a), prompt: String(b), buttons: c };
      const answer = call('Ui.prompt', [args]);
      return {
        getResponseText: () => answer.text,
        getSelectedButton: () => answer.button,
      };
    },
    showSidebar(output) {
      call('Ui.showSidebar', [outputData(output)]);
    },
    showModalDialog(output, title) {
      call('Ui.showModalDialog', [outputData(output, title)]);
    },
    showModelessDialog(output, title) {
      call('Ui.showModelessDialog', [outputData(output, title)]);
    },
  };

  const createdOutputs = [];

  class HtmlOutput {
    constructor(content) {
      this._content = content;
      this._title = '';
      this._width = undefined;
      this._height = undefined;
      createdOutputs.push(this);
    }
    getContent() {
      count('HtmlOutput.getContent');
      return this._content;
    }
    setContent(content) {
      this._content = String(content);
      return this;
    }
    append(content) {
      this._content += String(content);
      return this;
    }
    appendUntrusted(content) {
      this._content += escapeHtml(content);
      return this;
    }
    clear() {
      this._content = '';
      return this;
    }
    setTitle(title) {
      this._title = String(title);
      return this;
    }
    getTitle() {
      return this._title;
    }
    setWidth(width) {
      this._width = Number(width);
      return this;
    }
    getWidth() {
      return this._width;
    }
    setHeight(height) {
      this._height = Number(height);
      return this;
    }
    getHeight() {
      return this._height;
    }
    setSandboxMode() {
      return this;
    }
    setXFrameOptionsMode() {
      return this;
    }
    setFaviconUrl() {
      return this;
    }
    addMetaTag() {
      return this;
    }
    getAs() {
      return new Blob(host.bytes(this._content), 'text/html', null);
    }
    getBlob() {
      return this.getAs();
    }
    _describe(title) {
      const out = {
        type: 'HtmlOutput',
        title: title === undefined ? this._title : String(title),
        content: this._content,
      };
      if (this._width !== undefined) out.width = this._width;
      if (this._height !== undefined) out.height = this._height;
      return out;
    }
  }

  function escapeHtml(value) {
    return String(value)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;');
  }

  /** In a <script> element a printing scriptlet prints a JavaScript value (Apps Script's contextual escaping). */
  function escapeScript(value) {
    const json = JSON.stringify(value === undefined ? null : value);
    return String(json).replace(/</g, '\\x3c').replace(/>/g, '\\x3e');
  }

  /** Compiles `<?= ?>` (escaped), `<?!= ?>` (raw) and `<? ?>` (code) scriptlets to a function body. */
  function compileTemplate(source) {
    const parts = [];
    let inScript = false;
    let index = 0;
    const pattern = /<\?(!?=)?([\s\S]*?)\?>/g;
    for (let match = pattern.exec(source); match; match = pattern.exec(source)) {
      const literal = source.slice(index, match.index);
      const tags = literal.match(/<\/?script\b/gi) || [];
      for (const tag of tags) inScript = !tag.startsWith('</');
      parts.push(`__out.push(${JSON.stringify(literal)});`);
      const [, kind, code] = match;
      if (kind === '=') parts.push(`__out.push(${inScript ? '__script' : '__html'}((${code})));`);
      else if (kind === '!=') parts.push(`__out.push(String((${code})));`);
      else parts.push(code);
      index = pattern.lastIndex;
    }
    parts.push(`__out.push(${JSON.stringify(source.slice(index))});`);
    return `var __out = [];\nwith (__vars) {\n${parts.join('\n')}\n}\nreturn __out.join('');`;
  }

  class HtmlTemplate {
    constructor(source) {
      Object.defineProperty(this, '_source', { value: source, enumerable: false });
    }
    getRawContent() {
      return this._source;
    }
    getCode() {
      return compileTemplate(this._source);
    }
    evaluate() {
      count('HtmlTemplate.evaluate');
      const vars = {};
      for (const key of Object.keys(this)) vars[key] = this[key];
      // Template variables first, then the script's globals (functions of Code.js), as in Apps Script.
      const scope = new Proxy(vars, {
        has: (target, key) => key in target || (typeof key === 'string' && key in global && key !== '__out'),
        get: (target, key) => (key in target ? target[key] : global[key]),
      });
      const render = new Function('__vars', '__html', '__script', compileTemplate(this._source));
      return new HtmlOutput(render(scope, escapeHtml, escapeScript));
    }
  }

  const HtmlService = {
    SandboxMode: { IFRAME: 'IFRAME', NATIVE: 'NATIVE', EMULATED: 'EMULATED' },
    XFrameOptionsMode: { ALLOWALL: 'ALLOWALL', DEFAULT: 'DEFAULT' },
    createHtmlOutput(html) {
      count('HtmlService.createHtmlOutput');
      if (html instanceof HtmlTemplate) return html.evaluate();
      return new HtmlOutput(html === undefined ? '' : String(html));
    },
    createHtmlOutputFromFile(name) {
      return new HtmlOutput(call('HtmlService.createHtmlOutputFromFile', [String(name)]));
    },
    createTemplate(source) {
      count('HtmlService.createTemplate');
      return new HtmlTemplate(String(source));
    },
    createTemplateFromFile(name) {
      return new HtmlTemplate(call('HtmlService.createTemplateFromFile', [String(name)]));
    },
  };

  // ---------------------------------------------------------------- SpreadsheetApp

  const SpreadsheetApp = {
    getActive() {
      return this.getActiveSpreadsheet();
    },
    getActiveSpreadsheet() {
      const d = call('SpreadsheetApp.getActiveSpreadsheet');
      return d ? new Spreadsheet(d) : null;
    },
    getActiveSheet() {
      const d = call('SpreadsheetApp.getActiveSheet');
      return d ? new Sheet(d) : null;
    },
    getActiveRange() {
      const d = call('SpreadsheetApp.getActiveRange');
      return d ? new Range(d) : null;
    },
    getCurrentCell() {
      const d = call('SpreadsheetApp.getCurrentCell');
      return d ? new Range(d) : null;
    },
    getActiveRangeList() {
      const d = call('SpreadsheetApp.getActiveRange');
      return d ? new RangeList([d]) : null;
    },
    getSelection() {
      const d = call('SpreadsheetApp.getActiveSpreadsheet');
      return d ? new Selection(new Spreadsheet(d)) : null;
    },
    openById(id) {
      return new Spreadsheet(call('SpreadsheetApp.openById', [String(id)]));
    },
    getUi() {
      call('SpreadsheetApp.getUi');
      return Ui;
    },
    flush() {
      call('SpreadsheetApp.flush');
    },
  };

  // ---------------------------------------------------------------- Properties, Cache, Lock

  class Properties {
    constructor(store) {
      this._store = store;
    }
    _call(method, ...args) {
      return call(`Properties.${method}`, [this._store, ...args]);
    }
    getProperty(key) {
      return this._call('getProperty', String(key));
    }
    setProperty(key, value) {
      this._call('setProperty', String(key), String(value));
      return this;
    }
    getProperties() {
      return this._call('getProperties');
    }
    setProperties(properties, deleteAllOthers) {
      const values = {};
      for (const key of Object.keys(properties || {})) values[key] = String(properties[key]);
      this._call('setProperties', values, deleteAllOthers === true);
      return this;
    }
    getKeys() {
      return this._call('getKeys');
    }
    deleteProperty(key) {
      this._call('deleteProperty', String(key));
      return this;
    }
    deleteAllProperties() {
      this._call('deleteAllProperties');
      return this;
    }
  }

  const PropertiesService = {
    getScriptProperties() {
      return new Properties(call('PropertiesService.getScriptProperties'));
    },
    getDocumentProperties() {
      const store = call('PropertiesService.getDocumentProperties');
      return store ? new Properties(store) : null;
    },
    getUserProperties() {
      return new Properties(call('PropertiesService.getUserProperties'));
    },
  };

  class Cache {
    constructor(store) {
      this._store = store;
    }
    _call(method, ...args) {
      return call(`Cache.${method}`, [this._store, ...args]);
    }
    get(key) {
      return this._call('get', String(key));
    }
    getAll(keys) {
      return this._call('getAll', Array.from(keys, String));
    }
    put(key, value, expirationInSeconds) {
      this._call('put', String(key), String(value), expirationInSeconds);
    }
    putAll(values, expirationInSeconds) {
      const plain = {};
      for (const key of Object.keys(values || {})) plain[key] = String(values[key]);
      this._call('putAll', plain, expirationInSeconds);
    }
    remove(key) {
      this._call('remove', String(key));
    }
    removeAll(keys) {
      this._call('removeAll', Array.from(keys, String));
    }
  }

  const CacheService = {
    getScriptCache() {
      return new Cache(call('CacheService.getScriptCache'));
    },
    getDocumentCache() {
      const store = call('CacheService.getDocumentCache');
      return store ? new Cache(store) : null;
    },
    getUserCache() {
      return new Cache(call('CacheService.getUserCache'));
    },
  };

  class Lock {
    constructor(key) {
      this._key = key;
    }
    tryLock(timeoutInMillis) {
      return call('Lock.tryLock', [this._key, Number(timeoutInMillis) || 0]);
    }
    waitLock(timeoutInMillis) {
      call('Lock.waitLock', [this._key, Number(timeoutInMillis) || 0]);
    }
    releaseLock() {
      call('Lock.releaseLock', [this._key]);
    }
    hasLock() {
      return call('Lock.hasLock', [this._key]);
    }
  }

  const LockService = {
    getScriptLock() {
      return new Lock(call('LockService.getScriptLock'));
    },
    getDocumentLock() {
      const key = call('LockService.getDocumentLock');
      return key ? new Lock(key) : null;
    },
    getUserLock() {
      return new Lock(call('LockService.getUserLock'));
    },
  };

  // ---------------------------------------------------------------- UrlFetchApp

  class Blob {
    constructor(bytes, contentType, name) {
      this._bytes = Array.from(bytes || []);
      this._type = contentType || null;
      this._name = name || null;
    }
    getBytes() {
      return this._bytes.slice();
    }
    getDataAsString(charset) {
      return host.text(this._bytes, charset);
    }
    setDataFromString(text) {
      this._bytes = host.bytes(String(text));
      return this;
    }
    setBytes(bytes) {
      this._bytes = Array.from(bytes);
      return this;
    }
    getContentType() {
      return this._type;
    }
    setContentType(type) {
      this._type = type;
      return this;
    }
    getName() {
      return this._name;
    }
    setName(name) {
      this._name = name;
      return this;
    }
    copyBlob() {
      return new Blob(this._bytes, this._type, this._name);
    }
    isGoogleType() {
      return false;
    }
    getAs() {
      return this.copyBlob();
    }
    getBlob() {
      return this;
    }
  }

  class HTTPResponse {
    constructor(r) {
      this._r = r;
    }
    getResponseCode() {
      count('HTTPResponse.getResponseCode');
      return this._r.status;
    }
    getContentText(charset) {
      count('HTTPResponse.getContentText');
      return host.text(this._r.body, charset);
    }
    getContent() {
      count('HTTPResponse.getContent');
      return importValue(host.bytes(this._r.body));
    }
    getHeaders() {
      count('HTTPResponse.getHeaders');
      return { ...this._r.headers };
    }
    getAllHeaders() {
      count('HTTPResponse.getAllHeaders');
      return importValue(this._r.allHeaders);
    }
    getBlob() {
      count('HTTPResponse.getBlob');
      const type = Object.keys(this._r.headers).find((h) => h.toLowerCase() === 'content-type');
      return new Blob(importValue(host.bytes(this._r.body)), type ? this._r.headers[type] : null, null);
    }
    getAs() {
      return this.getBlob();
    }
  }

  function plainRequest(url, params) {
    const p = params || {};
    const request = { url: String(url) };
    if (p.method !== undefined) request.method = String(p.method);
    if (p.headers) {
      request.headers = {};
      for (const key of Object.keys(p.headers)) request.headers[key] = String(p.headers[key]);
    }
    if (p.contentType !== undefined) request.contentType = String(p.contentType);
    if (p.payload !== undefined && p.payload !== null) {
      const payload = p.payload;
      if (payload instanceof Blob) request.payload = payload.getBytes();
      else if (typeof payload === 'string' || Array.isArray(payload)) request.payload = payload;
      else if (typeof payload === 'object') {
        request.payload = {};
        for (const key of Object.keys(payload)) request.payload[key] = String(payload[key]);
      } else request.payload = String(payload);
    }
    for (const flagName of [
      'muteHttpExceptions',
      'followRedirects',
      'validateHttpsCertificates',
      'escaping',
    ]) {
      if (p[flagName] !== undefined) request[flagName] = !!p[flagName];
    }
    return request;
  }

  const UrlFetchApp = {
    fetch(url, params) {
      return new HTTPResponse(call('UrlFetchApp.fetch', [plainRequest(url, params)]));
    },
    fetchAll(requests) {
      const plain = Array.from(requests, (r) =>
        typeof r === 'string' ? plainRequest(r, {}) : plainRequest(r.url, r),
      );
      return call('UrlFetchApp.fetchAll', [plain]).map((r) => new HTTPResponse(r));
    },
    getRequest(url, params) {
      count('UrlFetchApp.getRequest');
      const request = plainRequest(url, params);
      return { ...request, method: (request.method || 'get').toLowerCase(), headers: request.headers || {} };
    },
  };

  // ---------------------------------------------------------------- ScriptApp, Session

  const AuthMode = { NONE: 'NONE', CUSTOM_FUNCTION: 'CUSTOM_FUNCTION', LIMITED: 'LIMITED', FULL: 'FULL' };
  const EventType = {
    CLOCK: 'CLOCK',
    ON_OPEN: 'ON_OPEN',
    ON_EDIT: 'ON_EDIT',
    ON_CHANGE: 'ON_CHANGE',
    ON_FORM_SUBMIT: 'ON_FORM_SUBMIT',
  };
  const TriggerSource = {
    SPREADSHEETS: 'SPREADSHEETS',
    CLOCK: 'CLOCK',
    DOCUMENTS: 'DOCUMENTS',
    FORMS: 'FORMS',
    CALENDAR: 'CALENDAR',
  };
  const WeekDay = {
    MONDAY: 'MONDAY',
    TUESDAY: 'TUESDAY',
    WEDNESDAY: 'WEDNESDAY',
    THURSDAY: 'THURSDAY',
    FRIDAY: 'FRIDAY',
    SATURDAY: 'SATURDAY',
    SUNDAY: 'SUNDAY',
  };

  class Trigger {
    constructor(d) {
      this._d = d;
    }
    getUniqueId() {
      count('Trigger.getUniqueId');
      return this._d.id;
    }
    getHandlerFunction() {
      count('Trigger.getHandlerFunction');
      return this._d.handler;
    }
    getEventType() {
      count('Trigger.getEventType');
      return this._d.eventType;
    }
    getTriggerSource() {
      count('Trigger.getTriggerSource');
      return this._d.source;
    }
    getTriggerSourceId() {
      count('Trigger.getTriggerSourceId');
      return this._d.sourceId || null;
    }
  }

  function triggerBuilder(handler) {
    const spec = { handler: String(handler) };
    const create = () => new Trigger(call('ScriptApp.newTrigger.create', [spec]));
    const clock = {
      everyMinutes(n) {
        spec.everyMinutes = n;
        return clock;
      },
      everyHours(n) {
        spec.everyHours = n;
        return clock;
      },
      everyDays(n) {
        spec.everyDays = n;
        return clock;
      },
      everyWeeks(n) {
        spec.everyWeeks = n;
        return clock;
      },
      after(ms) {
        spec.afterMs = ms;
        return clock;
      },
      at(date) {
        spec.at = new RealDate(date.getTime());
        return clock;
      },
      atHour(h) {
        spec.atHour = h;
        return clock;
      },
      nearMinute(m) {
        spec.nearMinute = m;
        return clock;
      },
      onWeekDay(d) {
        spec.onWeekDay = d;
        return clock;
      },
      onMonthDay(d) {
        spec.onMonthDay = d;
        return clock;
      },
      inTimezone(tz) {
        spec.timeZone = tz;
        return clock;
      },
      create,
    };
    const sheetTrigger = {
      onOpen() {
        spec.eventType = EventType.ON_OPEN;
        return sheetTrigger;
      },
      onEdit() {
        spec.eventType = EventType.ON_EDIT;
        return sheetTrigger;
      },
      onChange() {
        spec.eventType = EventType.ON_CHANGE;
        return sheetTrigger;
      },
      onFormSubmit() {
        spec.eventType = EventType.ON_FORM_SUBMIT;
        return sheetTrigger;
      },
      create,
    };
    return {
      timeBased() {
        spec.eventType = EventType.CLOCK;
        return clock;
      },
      forSpreadsheet(target) {
        spec.sourceId = typeof target === 'string' ? target : target.getId();
        return sheetTrigger;
      },
    };
  }

  const ScriptApp = {
    AuthMode,
    EventType,
    TriggerSource,
    WeekDay,
    getProjectTriggers() {
      return call('ScriptApp.getProjectTriggers').map((d) => new Trigger(d));
    },
    getUserTriggers(target) {
      const id = typeof target === 'string' ? target : target.getId();
      return call('ScriptApp.getUserTriggers', [id]).map((d) => new Trigger(d));
    },
    newTrigger(functionName) {
      count('ScriptApp.newTrigger');
      return triggerBuilder(functionName);
    },
    deleteTrigger(trigger) {
      call('ScriptApp.deleteTrigger', [trigger._d.id]);
    },
    getOAuthToken() {
      return call('ScriptApp.getOAuthToken');
    },
    getScriptId() {
      return call('ScriptApp.getScriptId');
    },
    getAuthorizationInfo() {
      count('ScriptApp.getAuthorizationInfo');
      return { getAuthorizationStatus: () => 'NOT_REQUIRED', getAuthorizationUrl: () => null };
    },
  };

  function makeUser(email) {
    return { getEmail: () => email, toString: () => email };
  }

  const Session = {
    getActiveUser() {
      return makeUser(call('Session.getActiveUser'));
    },
    getEffectiveUser() {
      return makeUser(call('Session.getEffectiveUser'));
    },
    getTemporaryActiveUserKey() {
      return call('Session.getTemporaryActiveUserKey');
    },
    getScriptTimeZone() {
      count('Session.getScriptTimeZone');
      return exec.timeZone;
    },
    getActiveUserLocale() {
      count('Session.getActiveUserLocale');
      return 'en';
    },
  };

  // ---------------------------------------------------------------- Utilities, Logger, console

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

  function bytesOf(value) {
    return value instanceof Blob ? value.getBytes() : Array.isArray(value) ? value : String(value);
  }

  const Utilities = {
    DigestAlgorithm,
    MacAlgorithm,
    Charset,
    sleep(milliseconds) {
      count('Utilities.sleep');
      host.sleep(Math.max(0, Math.min(MAX_SLEEP_MS, Number(milliseconds) || 0)));
    },
    computeDigest(algorithm, value) {
      count('Utilities.computeDigest');
      const digest = host.digest(algorithm, bytesOf(value));
      if (!digest) fail(`Invalid argument: algorithm`);
      return importValue(digest);
    },
    computeHmacSignature(algorithm, value, key) {
      count('Utilities.computeHmacSignature');
      const digest = host.digest(algorithm, bytesOf(value), bytesOf(key));
      if (!digest) fail(`Invalid argument: algorithm`);
      return importValue(digest);
    },
    computeHmacSha256Signature(value, key) {
      count('Utilities.computeHmacSha256Signature');
      return importValue(host.digest('SHA_256', bytesOf(value), bytesOf(key)));
    },
    base64Encode(data) {
      count('Utilities.base64Encode');
      return host.base64Encode(bytesOf(data), false);
    },
    base64EncodeWebSafe(data) {
      count('Utilities.base64EncodeWebSafe');
      return host.base64Encode(bytesOf(data), true);
    },
    base64Decode(text) {
      count('Utilities.base64Decode');
      const bytes = host.base64Decode(text, false);
      if (!bytes) fail('Could not decode string.');
      return importValue(bytes);
    },
    base64DecodeWebSafe(text) {
      count('Utilities.base64DecodeWebSafe');
      const bytes = host.base64Decode(text, true);
      if (!bytes) fail('Could not decode string.');
      return importValue(bytes);
    },
    newBlob(data, contentType, name) {
      count('Utilities.newBlob');
      const bytes = data === undefined ? [] : importValue(host.bytes(bytesOf(data)));
      return new Blob(bytes, contentType, name);
    },
    getUuid() {
      count('Utilities.getUuid');
      return host.uuid();
    },
    formatDate(date, timeZone, format) {
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
    formatString(template, ...args) {
      count('Utilities.formatString');
      return host.format([template, ...args]);
    },
    jsonStringify(value) {
      return JSON.stringify(value);
    },
    jsonParse(text) {
      return JSON.parse(text);
    },
  };

  function logged(level, message) {
    host.log(level, message);
  }

  const Logger = {
    log(data, ...values) {
      let message;
      if (values.length > 0 && typeof data === 'string') {
        let i = 0;
        message = data.replace(/%[sdf]/g, (token) => (i < values.length ? String(values[i++]) : token));
      } else if (typeof data === 'string') message = data;
      else {
        try {
          message = JSON.stringify(data);
        } catch {
          message = String(data);
        }
        if (message === undefined) message = String(data);
      }
      logged('info', message);
      return Logger;
    },
    getLog() {
      return '';
    },
    clear() {},
  };

  const consoleObject = {};
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    consoleObject[level] = (...args) => logged(level === 'log' ? 'info' : level, host.format(args));
  }
  consoleObject.time = () => {};
  consoleObject.timeEnd = () => {};

  const ContentService = {
    MimeType: {
      JSON: 'application/json',
      TEXT: 'text/plain',
      CSV: 'text/csv',
      JAVASCRIPT: 'application/javascript',
    },
    createTextOutput(content) {
      count('ContentService.createTextOutput');
      const output = {
        _content: content === undefined ? '' : String(content),
        _type: 'text/plain',
        getContent: () => output._content,
        setContent: (text) => {
          output._content = String(text);
          return output;
        },
        setMimeType: (type) => {
          output._type = type;
          return output;
        },
        getMimeType: () => output._type,
      };
      return output;
    },
  };

  Object.assign(global, {
    SpreadsheetApp,
    UrlFetchApp,
    PropertiesService,
    CacheService,
    LockService,
    ScriptApp,
    HtmlService,
    Utilities,
    Session,
    Logger,
    ContentService,
    console: consoleObject,
  });
  for (const name of Object.keys(global)) {
    if (/^[A-Z]/.test(name) && name !== 'Date') Object.defineProperty(global, name, { enumerable: false });
  }

  return {
    importValue,
    exportValue,
    createdOutputs: () => createdOutputs.map((o) => o._describe()),
    /** The event of a trigger: the data given, its authMode, and the spreadsheet as `source` where allowed. */
    makeEvent(event, authMode) {
      const e = importValue(event);
      if (e.authMode === undefined) e.authMode = AuthMode[authMode] || authMode;
      if (exec.spreadsheetId && authMode !== 'NONE' && e.source === undefined)
        e.source = new Spreadsheet({ ss: exec.spreadsheetId });
      return e;
    },
  };
}

const runtimeScript = new vm.Script(`(${installRuntime.toString()})`, { filename: 'emulator-runtime.js' });
const bundles = new Map();

function loadBundle(path) {
  const stat = fs.statSync(path);
  const cached = bundles.get(path);
  if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.script;
  const script = new vm.Script(fs.readFileSync(path, 'utf8'), { filename: 'Code.js' });
  bundles.set(path, { mtimeMs: stat.mtimeMs, size: stat.size, script });
  return script;
}

function errorOf(error) {
  if (error && typeof error === 'object' && typeof error.message === 'string') {
    return { name: String(error.name || 'Error'), message: error.message, stack: String(error.stack || '') };
  }
  return { name: 'Error', message: String(error), stack: '' };
}

function run(message) {
  const { execId, bundlePath, fn, args, event, exec, now } = message;
  currentExec = execId;
  parentPort.postMessage({ type: 'started', execId });
  syncClock(now);
  let runtime;
  try {
    const context = vm.createContext({}, { name: `Apps Script execution ${execId}` });
    runtime = runtimeScript.runInContext(context)(bridge, exec);
    loadBundle(bundlePath).runInContext(context);
    const target = context[fn];
    if (typeof target !== 'function')
      throw Object.assign(new Error(`Script function not found: ${fn}`), { name: 'Exception' });
    const callArgs =
      event === undefined ? runtime.importValue(args) : [runtime.makeEvent(event, exec.authMode)];
    const value = runtime.exportValue(target.apply(undefined, callArgs));
    parentPort.postMessage({
      type: 'done',
      execId,
      ok: true,
      value,
      counts: takeCounts(),
      outputs: runtime.createdOutputs(),
    });
  } catch (error) {
    const outputs = runtime ? runtime.createdOutputs() : [];
    parentPort.postMessage({
      type: 'done',
      execId,
      ok: false,
      error: errorOf(error),
      counts: takeCounts(),
      outputs,
    });
  } finally {
    currentExec = null;
  }
}

parentPort.on('message', (message) => {
  if (message && message.type === 'run') run(message);
});
