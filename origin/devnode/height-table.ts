import type { DevTreeSizes } from "./types.ts";

/**
 * Every hashed height's header hash and tree sizes after it, dense from `base`: 32 bytes plus
 * three Uint32 per height (grown by doubling), and a 48-bit-prefix map answering hash → height.
 * Memory ≈ 90 bytes per block (3.5 M blocks ≈ 300 MB).
 */
export class HeightTable {
  private readonly base: number;
  private capacity: number;
  private hashes: Buffer;
  private sizes: Uint32Array;
  private readonly byPrefix = new Map<number, number>();

  constructor(base: number, capacity: number) {
    this.base = base;
    this.capacity = capacity;
    this.hashes = Buffer.alloc(32 * capacity);
    this.sizes = new Uint32Array(3 * capacity);
  }

  record(height: number, wireHash: Buffer, treeSizes: DevTreeSizes): void {
    const i = height - this.base;
    while (i >= this.capacity) this.grow();
    wireHash.copy(this.hashes, 32 * i);
    this.sizes[3 * i] = treeSizes.sapling;
    this.sizes[3 * i + 1] = treeSizes.orchard;
    this.sizes[3 * i + 2] = treeSizes.ironwood;
    this.byPrefix.set(wireHash.readUIntLE(0, 6), height);
  }

  /** The recorded hash at `height`, wire order (a view into the table). */
  wireHash(height: number): Buffer {
    const i = height - this.base;
    return this.hashes.subarray(32 * i, 32 * (i + 1));
  }

  /** The recorded tree sizes after `height`. */
  treeSizes(height: number): DevTreeSizes {
    const i = 3 * (height - this.base);
    return { sapling: this.sizes[i]!, orchard: this.sizes[i + 1]!, ironwood: this.sizes[i + 2]! };
  }

  /** The height recorded with exactly this hash, if any. */
  heightOf(wireHash: Buffer): number | undefined {
    const h = this.byPrefix.get(wireHash.readUIntLE(0, 6));
    return h !== undefined && wireHash.equals(this.wireHash(h)) ? h : undefined;
  }

  /** Takes heights from..to-1 out of the hash index (a reorg replaces them). */
  forget(from: number, to: number): void {
    for (let h = from; h < to; h++) {
      const key = this.wireHash(h).readUIntLE(0, 6);
      if (this.byPrefix.get(key) === h) this.byPrefix.delete(key);
    }
  }

  private grow(): void {
    this.capacity *= 2;
    const hashes = Buffer.alloc(32 * this.capacity);
    this.hashes.copy(hashes);
    this.hashes = hashes;
    const sizes = new Uint32Array(3 * this.capacity);
    sizes.set(this.sizes);
    this.sizes = sizes;
  }
}
