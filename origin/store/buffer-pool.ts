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
 * Sizes come in classes (`classSize`) from `minBytes` up; larger than MAX_BYTES is allocated as usual
 * and not kept.
 */
export class BufferPool {
  /** Free buffers per size class (the size). */
  readonly #free = new Map<number, ArrayBuffer[]>();
  /** Buffers out on loan: only these are taken back, each once. */
  readonly #lent = new WeakSet<ArrayBufferLike>();
  readonly #maxFreeBytes: number;
  readonly #minBytes: number;
  #freeBytes = 0;

  /**
   * `maxFreeBytes`: what the pool keeps while nothing is lent (beyond that, given buffers are
   * dropped); `minBytes`: smaller reads (a block, metadata) allocate as usual.
   */
  constructor(o: { maxFreeBytes?: number; minBytes?: number } = {}) {
    this.#maxFreeBytes = o.maxFreeBytes ?? DEFAULT_MAX_FREE_BYTES;
    this.#minBytes = 2 ** Math.ceil(Math.log2(Math.max(4, o.minBytes ?? DEFAULT_MIN_BYTES)));
  }

  /** A buffer of exactly `length` bytes (a view of a pooled one when the size is pooled). */
  take(length: number): Uint8Array {
    if (length <= 0 || length > MAX_BYTES) return new Uint8Array(length);
    const size = classSize(Math.max(length, this.#minBytes));
    const reused = this.#free.get(size)?.pop();
    if (reused !== undefined) this.#freeBytes -= reused.byteLength;
    const buffer = reused ?? new ArrayBuffer(size);
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
    const list = this.#free.get(buffer.byteLength) ?? [];
    this.#free.set(buffer.byteLength, list);
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
const MAX_BYTES = 64 * 1024 * 1024;
/** Kept free: ≈ two of the largest range objects or bundles the spam era has. */
export const DEFAULT_MAX_FREE_BYTES = 128 * 1024 * 1024;

/**
 * The smallest size class ≥ `length` (≥ 4): four per power of two (2^k · 1, 1.25, 1.5, 1.75), so a
 * buffer is at most 25 % larger than its read (a 42 MB spam-era range in 48 MiB, not 64).
 */
function classSize(length: number): number {
  const octave = 2 ** Math.floor(Math.log2(length));
  for (const step of [1, 1.25, 1.5, 1.75]) if (octave * step >= length) return octave * step;
  return octave * 2;
}
