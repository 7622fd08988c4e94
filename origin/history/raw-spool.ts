import { closeSync, ftruncateSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { FRAME_HEADER_BYTES, frameHeader } from "../../proto/frame.ts";
import type { FileBody } from "../store/index.ts";

/**
 * The raw blocks of the ranges being filled, on disk in the data directory instead of in memory:
 * each range's file is its raw-block object (proto/range-format.md §Raw-block object: one data
 * frame per block) growing a block at a time, and the sealer writes the object from the file.
 *
 * Why: node-free history needs every block's exact bytes at sealing, and a 1,000-block range of
 * them is ≈ 72 MB on the dev chain and ≈ 600 MB at mainnet's 2022–23 spam (≈ 640 Sapling outputs
 * of 948 bytes a block: bench/scale/profile.ts) — more than the origin's 1 GiB while it was held
 * in the tail until the range sealed. The file is written with the page cache's help and read once.
 *
 * Only what this process appended in order is spooled: a range is spooled from its first block
 * on; blocks of a range begun before a restart (restored from the tail log, without raw bytes)
 * are not, and sealing fetches their bytes again as before (history-blocks.ts). The directory is
 * emptied when the spool opens. A failed write drops the range's file: its blocks' bytes are
 * then fetched again at sealing, never lost.
 */
export class RawSpool {
  readonly #dir: string;
  readonly #rangeSize: number;
  /** Ranges being spooled: the file, its first height, and where each block's frame ends. */
  readonly #ranges = new Map<
    number,
    { fd: number; path: string; first: number; ends: number[]; handed?: boolean }
  >();

  constructor(dir: string, rangeSize: number) {
    this.#dir = dir;
    this.#rangeSize = rangeSize;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }

  /**
   * Writes block `height`'s bytes to its range's file when it is that file's next block (a range's
   * first block starts the file). True when written: the caller may let go of the bytes.
   */
  append(height: number, raw: Uint8Array): boolean {
    const index = Math.floor(height / this.#rangeSize);
    let range = this.#ranges.get(index);
    if (range === undefined) {
      if (height !== index * this.#rangeSize) return false;
      const path = join(this.#dir, `${index}.raw`);
      try {
        range = { fd: openSync(path, "w"), path, first: height, ends: [] };
      } catch {
        return false;
      }
      this.#ranges.set(index, range);
    }
    if (height !== range.first + range.ends.length) return false;
    const at = range.ends.at(-1) ?? 0;
    try {
      writeAllSync(range.fd, frameHeader(raw.length), at);
      writeAllSync(range.fd, raw, at + FRAME_HEADER_BYTES);
    } catch {
      this.#drop(index);
      return false;
    }
    range.ends.push(at + FRAME_HEADER_BYTES + raw.length);
    return true;
  }

  /**
   * The raw-block object of range `index` when the spool holds every block of it. Frozen: the file
   * is never written again (a complete range takes no more blocks, and a reorg into it unlinks the
   * file rather than cutting it), so the directory store may hard-link it as the object.
   */
  object(index: number): FileBody | undefined {
    const range = this.#ranges.get(index);
    if (range === undefined || range.ends.length !== this.#rangeSize) return undefined;
    range.handed = true;
    return { file: range.path, length: range.ends.at(-1)!, frozen: true };
  }

  /**
   * Forgets every block above `height` (a reorg): later ranges' files go, the one holding it is
   * cut — or, once handed out as an object (which may share its bytes), goes too.
   */
  truncateAbove(height: number): void {
    for (const [index, range] of this.#ranges) {
      const keep = height - range.first + 1;
      if (keep <= 0 || (range.handed && keep < range.ends.length)) this.#drop(index);
      else if (keep < range.ends.length) {
        try {
          ftruncateSync(range.fd, range.ends[keep - 1]!);
          range.ends.length = keep;
        } catch {
          this.#drop(index);
        }
      }
    }
  }

  /** Deletes the files of ranges wholly at or below `height` (sealed: their objects are written). */
  dropThrough(height: number): void {
    for (const [index, range] of this.#ranges)
      if (range.first + this.#rangeSize - 1 <= height) this.#drop(index);
  }

  close(): void {
    for (const index of [...this.#ranges.keys()]) this.#drop(index);
  }

  #drop(index: number): void {
    const range = this.#ranges.get(index);
    if (range === undefined) return;
    this.#ranges.delete(index);
    try {
      closeSync(range.fd);
    } catch {}
    rmSync(range.path, { force: true });
  }
}

function writeAllSync(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; )
    done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}
