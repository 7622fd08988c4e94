import { sha256 } from "@noble/hashes/sha2.js";
import { equalBytes } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";

/**
 * A stored chunk of subtree roots (what GetSubtreeRoots serves), computed by the origin:
 *
 *   header 48 bytes  magic "LESR", version, pool (0 Sapling, 1 Orchard, 2 Ironwood), 2 zero bytes,
 *                    first subtree index u32 LE, count u32 LE, 4 zero bytes, SHA-256 of the entries
 *   entries 68 bytes root (32 bytes, the node's `z_getsubtreesbyindex` hex decoded as is: the
 *                    field element little-endian), completing block height u32 LE, completing
 *                    block hash (32 bytes, wire order)
 *
 * The completing hash is stored in wire (internal) order, as CompactBlock.hash. GetSubtreeRoots
 * serves `completingBlockHash` in DISPLAY order, as lightwalletd does (frontend/service.go:
 * `hash32.ReverseSlice(block.Hash)`), so servers reverse it when answering (origin/serve/subtrees.ts,
 * edge/rpc/tree-states.ts); the stored format is unchanged. All three pools are the origin's own
 * roots (Ironwood hashed as Orchard, origin/trees/README.md), except roots the origin seeds from the
 * node for subtrees completed before it started (origin/treestate/seed-ledger.ts).
 */
export const SUBTREE_ROOTS_MAGIC = "LESR";
export const SUBTREE_ROOTS_HEADER_BYTES = 48;
export const SUBTREE_ROOT_ENTRY_BYTES = 68;
const WHERE = "treestate.subtree-roots";
const POOL_CODES = ["sapling", "orchard", "ironwood"] as const;
export type SubtreePool = (typeof POOL_CODES)[number];

export interface StoredSubtreeRoot {
  /** 32 bytes, little-endian field element. */
  root: Uint8Array;
  completingHeight: number;
  /** 32 bytes, wire order (served reversed: display order). */
  completingWireHash: Uint8Array;
}

export interface SubtreeRootsChunk {
  pool: SubtreePool;
  firstIndex: number;
  roots: StoredSubtreeRoot[];
}

function corrupt(message: string): never {
  throw new LightedgeError("corrupt", WHERE, `${WHERE}: ${message}`);
}

export function encodeSubtreeRoots(chunk: SubtreeRootsChunk): Uint8Array {
  const n = chunk.roots.length;
  const out = new Uint8Array(SUBTREE_ROOTS_HEADER_BYTES + n * SUBTREE_ROOT_ENTRY_BYTES);
  const v = new DataView(out.buffer);
  chunk.roots.forEach((r, i) => {
    if (r.root.length !== 32 || r.completingWireHash.length !== 32)
      throw new LightedgeError("bad-request", WHERE, "subtree root and hash have 32 bytes");
    const at = SUBTREE_ROOTS_HEADER_BYTES + i * SUBTREE_ROOT_ENTRY_BYTES;
    out.set(r.root, at);
    v.setUint32(at + 32, r.completingHeight, true);
    out.set(r.completingWireHash, at + 36);
  });
  out.set(new TextEncoder().encode(SUBTREE_ROOTS_MAGIC), 0);
  out[4] = 1;
  out[5] = POOL_CODES.indexOf(chunk.pool);
  v.setUint32(8, chunk.firstIndex, true);
  v.setUint32(12, n, true);
  out.set(sha256(out.subarray(SUBTREE_ROOTS_HEADER_BYTES)), 16);
  return out;
}

/** Decodes and verifies a whole chunk object. */
export function decodeSubtreeRoots(bytes: Uint8Array): SubtreeRootsChunk {
  if (bytes.length < SUBTREE_ROOTS_HEADER_BYTES) corrupt("truncated header");
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== SUBTREE_ROOTS_MAGIC) corrupt("bad magic");
  if (bytes[4] !== 1) corrupt(`unsupported version ${bytes[4]}`);
  const pool = POOL_CODES[bytes[5]!] ?? corrupt(`bad pool ${bytes[5]}`);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const firstIndex = v.getUint32(8, true);
  const n = v.getUint32(12, true);
  if (bytes.length !== SUBTREE_ROOTS_HEADER_BYTES + n * SUBTREE_ROOT_ENTRY_BYTES)
    corrupt("length disagrees with count");
  if (!equalBytes(sha256(bytes.subarray(SUBTREE_ROOTS_HEADER_BYTES)), bytes.subarray(16, 48)))
    corrupt("sha256 mismatch");
  const roots = Array.from({ length: n }, (_, i) => {
    const at = SUBTREE_ROOTS_HEADER_BYTES + i * SUBTREE_ROOT_ENTRY_BYTES;
    return {
      root: bytes.slice(at, at + 32),
      completingHeight: v.getUint32(at + 32, true),
      completingWireHash: bytes.slice(at + 36, at + 68),
    };
  });
  return { pool, firstIndex, roots };
}
