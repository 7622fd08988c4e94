import { sha256 } from "@noble/hashes/sha2.js";
import type { Projection } from "./keys.ts";
import type { SealedBlockInput, SealedRangeInput } from "./types.ts";

/**
 * Synthetic ranges for tests and benches (pure, so workerd tests can use it too). Hashes are
 * SHA-256 of the height, so blocks chain; message bytes are deterministic pseudo-random filler of
 * the sizes asked for (the codec never looks inside a message).
 */
export interface SyntheticOptions {
  network?: string;
  rangeSize: number;
  index: number;
  /** Message sizes per block; default: small varied sizes. */
  sizes?: (height: number) => Record<Projection, number>;
}

export function syntheticWireHash(height: number): Uint8Array {
  if (height < 0) return new Uint8Array(32);
  const seed = new Uint8Array(8);
  new DataView(seed.buffer).setFloat64(0, height, false);
  return sha256(seed);
}

const defaultSizes = (height: number): Record<Projection, number> => ({
  shielded: 60 + (height % 97),
  full: 120 + ((height * 7) % 301),
  nullifiers: 40 + (height % 13),
});

export function syntheticRange(options: SyntheticOptions): SealedRangeInput {
  const { rangeSize, index } = options;
  const sizes = options.sizes ?? defaultSizes;
  const blocks: SealedBlockInput[] = [];
  for (let k = 0; k < rangeSize; k++) blocks.push(syntheticBlock(index * rangeSize + k, sizes));
  return { network: options.network ?? "testnet", rangeSize, index, blocks };
}

function syntheticBlock(height: number, sizes: SyntheticOptions["sizes"] & {}): SealedBlockInput {
  const s = sizes(height);
  return {
    height,
    wireHash: syntheticWireHash(height),
    wirePrevHash: syntheticWireHash(height - 1),
    time: 1_600_000_000 + height * 75,
    treeSizes: { sapling: height * 3, orchard: height * 2, ironwood: height },
    messages: {
      shielded: filler(s.shielded, height * 3),
      full: filler(s.full, height * 3 + 1),
      nullifiers: filler(s.nullifiers, height * 3 + 2),
    },
  };
}

/** xorshift32 filler: cheap, deterministic, incompressible enough for size figures. */
function filler(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
