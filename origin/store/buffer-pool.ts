/**
 * Read buffers reused across the origin's streaming reads instead of allocated per read.
 *
 * Why: every range object the origin streams was read into a new buffer, and V8 counts
 * ArrayBuffer memory as external: at hundreds of MB/s of reads it starts a full mark-compact every
 * few tens of MB (`node --trace-gc`: 131 per three passes of the 3.5 M-block scale download, ≈ 17
 * ms each with the incremental steps), half the process's busy time. The same download reading
 * into reused buffers: 9 mark-compacts, CPU per GB 4.1–5.0 → 2.6–2.7 (bench/README.md).
 *
 * A buffer is lent (`take`) and comes back (`give`) only once nothing can read it any more — for
 * the fast path, when every write of it has called back (origin/serve/fast/output.ts). A buffer
 * that never comes back is collected as any other: a lost `give` costs a reuse, never bytes.
 * Sizes are powers of two from MIN_CLASS; larger than MAX_CLASS is allocated as usual and not kept.
 */
export class BufferPool {
  /** Free buffers per size class (log2 of the size). */
  readonly #free = new Map<number, ArrayBuffer[]>();
  /** Buffers out on loan: only these are taken back, each once. */
  readonly #lent = new WeakSet<ArrayBufferLike>();
  readonly #maxFreeBytes: number;
  readonly #minClass: number;
  #freeBytes = 0;

  /**
   * `maxFreeBytes`: what the pool keeps while nothing is lent (beyond that, given buffers are
   * dropped); `minBytes`: smaller reads (a block, metadata) allocate as usual.
   */
  constructor(o: { maxFreeBytes?: number; minBytes?: number } = {}) {
    this.#maxFreeBytes = o.maxFreeBytes ?? DEFAULT_MAX_FREE_BYTES;
    this.#minClass = Math.ceil(Math.log2(Math.max(1, o.minBytes ?? DEFAULT_MIN_BYTES)));
  }

  /** A buffer of exactly `length` bytes (a view of a pooled one when the size is pooled). */
  take(length: number): Uint8Array {
    const sizeClass = length > 0 ? Math.max(this.#minClass, Math.ceil(Math.log2(length))) : MAX_CLASS + 1;
    if (sizeClass > MAX_CLASS) return new Uint8Array(length);
    const reused = this.#free.get(sizeClass)?.pop();
    if (reused !== undefined) this.#freeBytes -= reused.byteLength;
    const buffer = reused ?? new ArrayBuffer(2 ** sizeClass);
    this.#lent.add(buffer);
    return new Uint8Array(buffer, 0, length);
  }

  /** True when `buffer` is one this pool lent and has not had back. */
  lent(buffer: ArrayBufferLike): boolean {
    return this.#lent.has(buffer);
  }

  /** Takes back a lent buffer for reuse; anything else (a foreign buffer, a second give) is ignored. */
  give(buffer: ArrayBufferLike): void {
    if (!this.#lent.delete(buffer)) return;
    if (this.#freeBytes + buffer.byteLength > this.#maxFreeBytes) return;
    const sizeClass = Math.log2(buffer.byteLength);
    const list = this.#free.get(sizeClass) ?? [];
    this.#free.set(sizeClass, list);
    list.push(buffer as ArrayBuffer);
    this.#freeBytes += buffer.byteLength;
  }

  /** Bytes held for reuse now (for tests and metrics). */
  get freeBytes(): number {
    return this.#freeBytes;
  }
}

/** 64 KiB: a range object smaller than that is a small read. */
const DEFAULT_MIN_BYTES = 64 * 1024;
/** 64 MiB: a bundle is at most 32 MiB (proto/range/bundles.ts); a read larger than this is rare. */
const MAX_CLASS = 26;
/** Kept free: ≈ two of the largest range objects or bundles the spam era has. */
export const DEFAULT_MAX_FREE_BYTES = 128 * 1024 * 1024;
