import { LightedgeError } from "../errors.ts";
import { SUBTREE_CHUNK, subtreeChunkKey } from "./keys.ts";
import type { ReadBytes } from "./reader.ts";
import { decodeSubtreeRoots, type StoredSubtreeRoot, type SubtreePool } from "./subtree-roots.ts";

/** Leaves per subtree as z_getsubtreesbyindex counts them (level-16 nodes). */
export const SUBTREE_LEAF_COUNT = 2 ** 16;

export interface SubtreeQuery {
  pool: SubtreePool;
  startIndex: number;
  /** 0 = all. */
  maxEntries: number;
  /** The pool's tree size at the served tip: ⌊size / 2¹⁶⌋ subtrees are complete. */
  treeSize: number;
}

/** Chunk count to read for subtrees 0..completed − 1 when `chunk` is the chunk holding some of them. */
function chunkCount(chunk: number, completed: number): number {
  return Math.min(SUBTREE_CHUNK, completed - chunk * SUBTREE_CHUNK);
}

/**
 * The stored roots of chunk `chunk` when `completed` subtrees are complete (its object holds
 * roots chunk × 256 … up to `completed` − 1), or undefined when that object is not stored.
 */
export async function readSubtreeChunk(
  read: ReadBytes,
  network: string,
  pool: SubtreePool,
  chunk: number,
  completed: number,
): Promise<StoredSubtreeRoot[] | undefined> {
  const key = subtreeChunkKey(network, pool, chunk, chunkCount(chunk, completed));
  const bytes = await read(key);
  if (bytes === null) return undefined;
  const decoded = decodeSubtreeRoots(bytes);
  if (decoded.pool !== pool || decoded.firstIndex !== chunk * SUBTREE_CHUNK)
    throw new LightedgeError("corrupt", "treestate.subtrees", `${key} describes another chunk`);
  return decoded.roots;
}

/** Checks a GetSubtreeRoots query's numbers; the end (exclusive) of the answer when `completed` are. */
export function subtreeQueryEnd(q: { startIndex: number; maxEntries: number }, completed: number): number {
  if (
    !Number.isInteger(q.startIndex) ||
    q.startIndex < 0 ||
    !Number.isInteger(q.maxEntries) ||
    q.maxEntries < 0
  )
    throw new LightedgeError("bad-request", "treestate.subtrees", "invalid subtree query");
  return q.maxEntries === 0 ? completed : Math.min(completed, q.startIndex + q.maxEntries);
}

/**
 * Completed subtree roots from the stored chunks, ascending from `startIndex`, or undefined when a
 * chunk the answer needs is not stored (the caller falls back to the node). A start past the last
 * completed subtree is an empty answer, as z_getsubtreesbyindex gives.
 */
export async function readSubtreeRoots(
  read: ReadBytes,
  network: string,
  q: SubtreeQuery,
): Promise<StoredSubtreeRoot[] | undefined> {
  const completed = Math.floor(q.treeSize / SUBTREE_LEAF_COUNT);
  const end = subtreeQueryEnd(q, completed);
  if (q.startIndex >= end) return [];
  const chunks: number[] = [];
  for (let c = Math.floor(q.startIndex / SUBTREE_CHUNK); c * SUBTREE_CHUNK < end; c++) chunks.push(c);
  const parts = await Promise.all(chunks.map((c) => readSubtreeChunk(read, network, q.pool, c, completed)));
  if (parts.some((p) => p === undefined)) return undefined;
  const all = parts.flat() as StoredSubtreeRoot[];
  const offset = q.startIndex - chunks[0]! * SUBTREE_CHUNK;
  return all.slice(offset, offset + (end - q.startIndex));
}
