import { ChainParseError } from "./errors.ts";

/**
 * A bounds-checked little-endian cursor over raw chain bytes. Every read checks what remains, and
 * `count` bounds a claimed element count by the bytes left, so a hostile count never allocates.
 */
export class Reader {
  readonly buf: Uint8Array;
  pos: number;
  readonly end: number;
  /** Transaction being parsed, for error reports (-1 = none). */
  txIndex = -1;
  /** Fuzz hook: offsets of every count read (see ParseOptions.countSites). */
  countSites: number[] | undefined = undefined;

  constructor(buf: Uint8Array, pos = 0, end = buf.length) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  fail(message: string, at = this.pos): never {
    throw new ChainParseError(message, this.txIndex, at);
  }

  need(n: number, what: string): void {
    if (n > this.end - this.pos) this.fail(`truncated ${what}: need ${n} bytes, ${this.end - this.pos} left`);
  }

  u8(what: string): number {
    this.need(1, what);
    return this.buf[this.pos++]!;
  }

  u32(what: string): number {
    this.need(4, what);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  }

  /** A view of the next n bytes (no copy). */
  bytes(n: number, what: string): Uint8Array {
    this.need(n, what);
    const p = this.pos;
    this.pos = p + n;
    return this.buf.subarray(p, p + n);
  }

  skip(n: number, what: string): void {
    this.need(n, what);
    this.pos += n;
  }

  /** Bitcoin CompactSize, canonical encodings only (as zcashd requires), capped at 2^32-1. */
  compactSize(what: string): number {
    const at = this.pos;
    const first = this.u8(what);
    if (first < 0xfd) return first;
    if (first === 0xfd) {
      this.need(2, what);
      const v = this.buf[this.pos]! | (this.buf[this.pos + 1]! << 8);
      this.pos += 2;
      if (v < 0xfd) this.fail(`non-canonical compactSize for ${what}`, at);
      return v;
    }
    if (first === 0xfe) {
      const v = this.u32(what);
      if (v < 0x10000) this.fail(`non-canonical compactSize for ${what}`, at);
      return v;
    }
    this.fail(`compactSize for ${what} too large`, at);
  }

  /** A count of elements of at least `minSize` bytes each, bounded by the bytes that remain. */
  count(minSize: number, what: string): number {
    const at = this.pos;
    this.countSites?.push(at);
    const n = this.compactSize(`${what} count`);
    if (n * minSize > this.end - this.pos) {
      this.fail(`${what} count ${n} exceeds the ${this.end - this.pos} bytes left`, at);
    }
    return n;
  }

  /** A compactSize-prefixed byte string. */
  varBytes(what: string): Uint8Array {
    const at = this.pos;
    const n = this.compactSize(`${what} length`);
    if (n > this.end - this.pos)
      this.fail(`${what} length ${n} exceeds the ${this.end - this.pos} bytes left`, at);
    return this.bytes(n, what);
  }
}
