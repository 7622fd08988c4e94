import { randomBytes } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import {
  copyFile,
  type FileHandle,
  link,
  lstat,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  rmdir,
  stat,
} from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { LightedgeError } from "../../proto/errors.ts";
import type { SpanReadOptions } from "../../proto/range/index.ts";
import {
  type BlobStore,
  type Body,
  type ByteRange,
  bodyParts,
  type FileBody,
  isFileBody,
} from "./blob-store.ts";
import { createContentEtags } from "./content-etag.ts";
import { assertSafeKey, assertSafePrefix } from "./key-path.ts";
import { sameFileContent } from "./same-content.ts";

const TEMP_PREFIX = ".tmp-";

/**
 * Temp files older than this are leftovers of a writer killed between open and rename (kill -9,
 * power loss) and are removed when a store opens. A live write takes milliseconds, so an hour never
 * races one — even another process writing the same directory.
 */
export const TEMP_MAX_AGE_MS = 60 * 60 * 1000;

export interface DirectoryStoreOptions {
  /** Age above which `.tmp-*` files are swept at open (default TEMP_MAX_AGE_MS). */
  tempMaxAgeMs?: number;
}

/** The directory store; `swept` settles with how many leftover temp files the sweep at open removed. */
export type DirectoryStore = BlobStore & { swept: Promise<number> };

/**
 * A directory as a blob store: the origin's embedded default. Writes are atomic and durable
 * (temp file, fsync, rename, fsync of the directory), so a crash leaves the old object or the new
 * one, and a head written after its ranges never points at bytes lost in a page cache.
 */
export function createDirectoryStore(root: string, options: DirectoryStoreOptions = {}): DirectoryStore {
  const etags = createContentEtags();
  // In the background: opening must not wait on a walk of the whole store. Failures (a root not
  // created yet, permissions) are no reason to refuse the store; the next open sweeps again.
  const swept = sweepTempFiles(root, options.tempMaxAgeMs ?? TEMP_MAX_AGE_MS).catch(() => 0);
  const pathOf = (key: string) => {
    assertSafeKey(key);
    return join(root, ...key.split("/"));
  };
  return {
    async put(key, body, opts) {
      const path = pathOf(key);
      // Rewriting a sealed object after a crash is the normal recovery path: skip identical bytes
      // so its etag (and any cache validator built on it) stays the same.
      if (opts?.immutable && (await sameFileContent(path, body))) return;
      await writeAtomically(root, path, body);
    },
    get: (key, range, opts) => readFileRange(pathOf(key), range, opts),
    stat: async (key) => {
      const path = pathOf(key);
      try {
        return await etags(path);
      } catch (err) {
        return absent(err as NodeJS.ErrnoException);
      }
    },
    async list(prefix) {
      assertSafePrefix(prefix);
      const folder = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
      const keys = await walk(root, join(root, ...folder.split("/").filter(Boolean)));
      return keys.filter((k) => k.startsWith(prefix)).sort();
    },
    async delete(keys) {
      const folders = new Set<string>();
      for (const key of keys) {
        const path = pathOf(key);
        await rm(path, { force: true });
        folders.add(dirname(path));
      }
      // A level's folder goes with its last object: an emptied folder per superseded level would
      // pile up for as long as the store lives. A folder still holding something stays.
      for (const folder of folders) if (folder !== root) await rmdir(folder).catch(() => {});
    },
    swept,
  };
}

/** Removes `.tmp-*` files under `root` last modified more than `maxAgeMs` ago; returns how many. */
export async function sweepTempFiles(root: string, maxAgeMs: number, now = Date.now()): Promise<number> {
  let removed = 0;
  const entries = await readdir(root, { withFileTypes: true }).catch(absent);
  for (const entry of entries ?? []) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) removed += await sweepTempFiles(path, maxAgeMs, now);
    else if (entry.isFile() && entry.name.startsWith(TEMP_PREFIX)) {
      const info = await lstat(path).catch(() => null);
      if (info && now - info.mtimeMs > maxAgeMs) {
        await rm(path, { force: true });
        removed++;
      }
    }
  }
  return removed;
}

/** Parts written per writev call (well under IOV_MAX, 1,024 on Linux). */
const WRITEV_PARTS = 256;

async function writeAtomically(root: string, path: string, body: Body): Promise<void> {
  const dir = dirname(path);
  const created = await mkdir(dir, { recursive: true });
  const temp = join(dir, `${TEMP_PREFIX}${randomBytes(6).toString("hex")}`);
  try {
    // A file body is never read into memory and written back: the spool's raw-block objects
    // (origin/history/raw-spool.ts) are all the raw blocks of the chain. A frozen file of exactly
    // the body's length is hard-linked (its bytes are on disk once); otherwise, or across
    // filesystems, the kernel copies it (copy_file_range, or a reflink where blocks are shared).
    if (isFileBody(body) && !(await linked(body, temp)))
      await copyFile(body.file, temp, fsConstants.COPYFILE_EXCL);
    const file = await open(temp, isFileBody(body) ? "r+" : "wx");
    try {
      if (isFileBody(body)) await cutTo(file, body);
      else {
        const parts = bodyParts(body);
        for (let k = 0; k < parts.length; k += WRITEV_PARTS)
          await writeParts(file, parts.slice(k, k + WRITEV_PARTS));
      }
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncDir(dir);
  // New directories are durable only once their parents' entries are: sync up to the root.
  if (created)
    for (let d = dirname(dir); d.length >= root.length && d !== dirname(d); d = dirname(d)) await syncDir(d);
}

/**
 * Links a frozen file body at `temp` when the file holds exactly its bytes; false when it may not
 * or cannot be (another filesystem: EXDEV; a filesystem without hard links), and the caller copies.
 * The fsync that follows flushes the shared inode, so the object is as durable as a copy.
 */
async function linked(body: FileBody, temp: string): Promise<boolean> {
  if (!body.frozen) return false;
  try {
    if ((await stat(body.file)).size !== body.length) return false;
    await link(body.file, temp);
    return true;
  } catch {
    return false;
  }
}

/** A copied file body cut to its length; one shorter than that is an error, never zero-filled. */
async function cutTo(file: FileHandle, body: FileBody): Promise<void> {
  const { size } = await file.stat();
  if (size < body.length)
    throw new LightedgeError(
      "internal",
      "directory-store",
      `${body.file} has ${size} of ${body.length} bytes`,
    );
  if (size > body.length) await file.truncate(body.length);
}

/** Writes parts at the file's position, one writev; what a short write left, after it. */
async function writeParts(file: FileHandle, parts: Uint8Array[]): Promise<void> {
  const total = parts.reduce((n, part) => n + part.length, 0);
  const { bytesWritten } = await file.writev(parts);
  if (bytesWritten < total) await file.writeFile(Buffer.concat(parts).subarray(bytesWritten));
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readFileRange(
  path: string,
  range?: ByteRange,
  opts?: SpanReadOptions,
): Promise<Uint8Array | null> {
  const file = await open(path, "r").catch(absent);
  if (!file) return null;
  try {
    const size = (await file.stat()).size;
    const offset = range ? Math.min(range.offset, size) : 0;
    const length = range ? Math.min(range.length, size - offset) : size;
    const out = opts?.into?.(length) ?? new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await file.read(out, done, length - done, offset + done);
      if (bytesRead === 0)
        throw new LightedgeError("corrupt", "directory-store", `${path} shrank while read`);
      done += bytesRead;
    }
    return out;
  } finally {
    await file.close();
  }
}

async function walk(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(absent);
  if (!entries) return [];
  const keys: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue; // temp files and anything not written by put
    const path = join(dir, entry.name);
    if (entry.isDirectory()) keys.push(...(await walk(root, path)));
    else if (entry.isFile()) keys.push(relative(root, path).split(sep).join("/"));
  }
  return keys;
}

/** ENOENT/ENOTDIR mean "absent"; anything else (permissions, I/O) is the store being unavailable. */
function absent(err: NodeJS.ErrnoException): null {
  if (err.code === "ENOENT" || err.code === "ENOTDIR") return null;
  throw new LightedgeError("unavailable", "directory-store", `directory store: ${err.message}`, {
    cause: err,
  });
}
