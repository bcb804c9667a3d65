/** HtmlService: outputs, templates with scriptlets (evaluated here), files read by the host (services/ui.ts). */
import type { OutputData } from '../protocol';
import { Blob } from './blob';
import { call, count, type Exportable, host } from './core';

const createdOutputs: HtmlOutput[] = [];

/**
 * Every HtmlOutput this execution created, shown or not (the host records them), but for a project file read as
 * it is and never changed: it holds nothing the script made. A shown one is recorded by the Ui.
 */
export function describeCreatedOutputs(): OutputData[] {
  return createdOutputs.filter((o) => !o._fileAsIs).map((o) => o._describe());
}

export class HtmlOutput implements Exportable {
  private _title = '';
  private _width: number | undefined;
  private _height: number | undefined;
  /** Made by createHtmlOutputFromFile and not changed since. */
  _fileAsIs = false;
  constructor(private _content: string) {
    createdOutputs.push(this);
  }
  getContent(): string {
    count('HtmlOutput.getContent');
    return this._content;
  }
  setContent(content: unknown): this {
    this._fileAsIs = false;
    this._content = String(content);
    return this;
  }
  append(content: unknown): this {
    this._fileAsIs = false;
    this._content += String(content);
    return this;
  }
  appendUntrusted(content: unknown): this {
    this._fileAsIs = false;
    this._content += escapeHtml(content);
    return this;
  }
  clear(): this {
    this._fileAsIs = false;
    this._content = '';
    return this;
  }
  setTitle(title: unknown): this {
    this._title = String(title);
    return this;
  }
  getTitle(): string {
    return this._title;
  }
  setWidth(width: unknown): this {
    this._width = Number(width);
    return this;
  }
  getWidth(): number | undefined {
    return this._width;
  }
  setHeight(height: unknown): this {
    this._height = Number(height);
    return this;
  }
  getHeight(): number | undefined {
    return this._height;
  }
  setSandboxMode(): this {
    return this;
  }
  setXFrameOptionsMode(): this {
    return this;
  }
  setFaviconUrl(): this {
    return this;
  }
  addMetaTag(): this {
    return this;
  }
  getAs(): Blob {
    return new Blob(host.bytes(this._content), 'text/html', null);
  }
  getBlob(): Blob {
    return this.getAs();
  }
  _describe(title?: unknown): OutputData {
    const out: OutputData = {
      type: 'HtmlOutput',
      title: title === undefined ? this._title : String(title),
      content: this._content,
    };
    if (this._width !== undefined) out.width = this._width;
    if (this._height !== undefined) out.height = this._height;
    return out;
  }
  _export(): unknown {
    return this._describe();
  }
}

function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** In a <script> element a printing scriptlet prints a JavaScript value (Apps Script's contextual escaping). */
function escapeScript(value: unknown): string {
  const json = JSON.stringify(value === undefined ? null : value);
  return String(json).replace(/</g, '\\x3c').replace(/>/g, '\\x3e');
}

/** Compiles `<?= ?>` (escaped), `<?!= ?>` (raw) and `<? ?>` (code) scriptlets to a function body. */
function compileTemplate(source: string): string {
  const parts: string[] = [];
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
  // Not a class field: the template's own enumerable properties are its variables.
  declare readonly _source: string;
  constructor(source: string) {
    Object.defineProperty(this, '_source', { value: source, enumerable: false });
  }
  getRawContent(): string {
    return this._source;
  }
  getCode(): string {
    return compileTemplate(this._source);
  }
  evaluate(): HtmlOutput {
    count('HtmlTemplate.evaluate');
    const vars: Record<string | symbol, unknown> = {};
    for (const key of Object.keys(this)) vars[key] = (this as unknown as Record<string, unknown>)[key];
    const global = globalThis as unknown as Record<string | symbol, unknown>;
    // Template variables first, then the script's globals (functions of Code.js), as in Apps Script.
    const scope = new Proxy(vars, {
      has: (target, key) => key in target || (typeof key === 'string' && key in global && key !== '__out'),
      get: (target, key) => (key in target ? target[key] : global[key]),
    });
    const render = new Function('__vars', '__html', '__script', compileTemplate(this._source));
    return new HtmlOutput(render(scope, escapeHtml, escapeScript));
  }
}

export const HtmlService = {
  SandboxMode: { IFRAME: 'IFRAME', NATIVE: 'NATIVE', EMULATED: 'EMULATED' },
  XFrameOptionsMode: { ALLOWALL: 'ALLOWALL', DEFAULT: 'DEFAULT' },
  createHtmlOutput(html?: unknown): HtmlOutput {
    count('HtmlService.createHtmlOutput');
    if (html instanceof HtmlTemplate) return html.evaluate();
    return new HtmlOutput(html === undefined ? '' : String(html));
  },
  /** The file's content exactly as pushed: no scriptlet is evaluated, nothing escaped (services/ui.ts reads it). */
  createHtmlOutputFromFile(name: unknown): HtmlOutput {
    const output = new HtmlOutput(call('HtmlService.createHtmlOutputFromFile', [String(name)]));
    output._fileAsIs = true;
    return output;
  },
  createTemplate(source: unknown): HtmlTemplate {
    count('HtmlService.createTemplate');
    return new HtmlTemplate(String(source));
  },
  createTemplateFromFile(name: unknown): HtmlTemplate {
    return new HtmlTemplate(call('HtmlService.createTemplateFromFile', [String(name)]));
  },
};
