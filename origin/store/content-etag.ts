import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Lru } from "../../proto/lru.ts";

/** A file's size and an ETag derived from its bytes. */
export interface FileTag {
  size: number;
  etag: string;
}

interface Cached extends FileTag {
  ino: bigint;
  mtimeNs: bigint;
}

/** Entries kept at most; one per object served, so this bounds memory, not hits. */
const MAX_ENTRIES = 4096;

/**
 * Strong ETags from content (SHA-256 of the bytes, RFC 9110 §8.8.3), so an immutable object
 * rewritten with the same bytes — a crash recovery re-sealing a range — keeps its validator and
 * caches stay warm; size+mtime validators change on every rewrite. The hash is cached per path
 * while inode, size and mtime are unchanged (files are replaced by rename, so any rewrite shows).
 */
export function createContentEtags(): (path: string) => Promise<FileTag | null> {
  const cache = new Lru<string, Cached>({ maxEntries: MAX_ENTRIES });
  return async (path) => {
    const info = await stat(path, { bigint: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT" || err.code === "ENOTDIR") return null;
      throw err;
    });
    if (!info?.isFile()) return null;
    const hit = cache.get(path);
    if (hit && hit.ino === info.ino && hit.mtimeNs === info.mtimeNs && hit.size === Number(info.size))
      return { size: hit.size, etag: hit.etag };
    const etag = `"${await sha256Hex(path)}"`;
    const size = Number(info.size);
    cache.set(path, { size, etag, ino: info.ino, mtimeNs: info.mtimeNs });
    return { size, etag };
  };
}

async function sha256Hex(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
