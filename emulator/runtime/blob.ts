/** Blob: bytes with a content type and a name (Apps Script's bytes are signed, -128..127). */
import type { ByteSource } from '../protocol';
import { host } from './core';

export class Blob {
  private _bytes: number[];
  private _type: string | null;
  private _name: string | null;
  constructor(bytes: Iterable<number> | null | undefined, contentType?: string | null, name?: string | null) {
    this._bytes = Array.from(bytes || []);
    this._type = contentType || null;
    this._name = name || null;
  }
  getBytes(): number[] {
    return this._bytes.slice();
  }
  getDataAsString(charset?: string): string {
    return host.text(this._bytes, charset);
  }
  setDataFromString(text: unknown): this {
    this._bytes = host.bytes(String(text));
    return this;
  }
  setBytes(bytes: Iterable<number>): this {
    this._bytes = Array.from(bytes);
    return this;
  }
  getContentType(): string | null {
    return this._type;
  }
  setContentType(type: string | null): this {
    this._type = type;
    return this;
  }
  getName(): string | null {
    return this._name;
  }
  setName(name: string | null): this {
    this._name = name;
    return this;
  }
  copyBlob(): Blob {
    return new Blob(this._bytes, this._type, this._name);
  }
  isGoogleType(): boolean {
    return false;
  }
  getAs(): Blob {
    return this.copyBlob();
  }
  getBlob(): this {
    return this;
  }
}

/** What a script passes as bytes: a Blob, signed bytes, or text. */
export function bytesOf(value: unknown): ByteSource {
  return value instanceof Blob ? value.getBytes() : Array.isArray(value) ? value : String(value);
}
