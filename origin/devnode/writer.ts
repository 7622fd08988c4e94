/** A growable little-endian byte writer for building synthetic transactions and blocks. */
export class ByteWriter {
  buf: Buffer;
  pos = 0;

  constructor(capacity = 4096) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.pos++] = v;
  }

  u32(v: number): void {
    this.room(4);
    this.buf.writeUInt32LE(v >>> 0, this.pos);
    this.pos += 4;
  }

  /** int64 LE from a safe integer (values in zatoshi; may be negative for value balances). */
  i64(v: number): void {
    this.room(8);
    this.buf.writeBigInt64LE(BigInt(v), this.pos);
    this.pos += 8;
  }

  /** Bitcoin CompactSize. */
  compactSize(n: number): void {
    if (n < 0xfd) this.u8(n);
    else if (n <= 0xffff) {
      this.u8(0xfd);
      this.room(2);
      this.buf.writeUInt16LE(n, this.pos);
      this.pos += 2;
    } else {
      this.u8(0xfe);
      this.u32(n);
    }
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** n bytes of `src` repeated (proof and signature filler) without allocating. */
  tile(src: Uint8Array, n: number): void {
    this.room(n);
    for (let i = 0; i < n; i += src.length) {
      const take = Math.min(src.length, n - i);
      this.buf.set(take === src.length ? src : src.subarray(0, take), this.pos + i);
    }
    this.pos += n;
  }

  /** A copy of what was written. */
  done(): Uint8Array {
    return new Uint8Array(this.buf.subarray(0, this.pos));
  }
}
