import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { equalBytes } from "../../proto/bytes.ts";
import type { IndexedBlock } from "./tail.ts";

/**
 * The tail persisted in the data dir for a fast restart: an append-only log of block records,
 * each `u32 length · u32 crc32 · payload`. A record at height h supersedes everything at ≥ h, so a
 * reorg is just more appends. A torn last record (kill -9 mid-write) fails its CRC and is cut off
 * on load; compaction writes a new file and renames it over the old one (atomic on POSIX).
 */
export interface TailLog {
  /** The logged chain, oldest first (empty when there is no log). */
  load(): IndexedBlock[];
  append(blocks: readonly IndexedBlock[]): void;
  /** Replaces the log with exactly these blocks (after sealing or a reorg). */
  rewrite(blocks: readonly IndexedBlock[]): void;
}

const FIXED = 96;
const RECORD_HEADER = 8;
const ORDER = ["shielded", "full", "nullifiers"] as const;

export function createTailLog(dataDir: string, network: string): TailLog {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, `tail-${network}.log`);
  return {
    load: () => loadLog(path),
    append(blocks) {
      if (blocks.length === 0) return;
      const fd = openSync(path, "a");
      try {
        writeSync(fd, Buffer.concat(blocks.map(encodeRecord)));
      } finally {
        closeSync(fd);
      }
    },
    rewrite(blocks) {
      const temp = `${path}.tmp`;
      const fd = openSync(temp, "w");
      try {
        writeSync(fd, Buffer.concat(blocks.map(encodeRecord)));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, path);
    },
  };
}

export function encodeRecord(block: IndexedBlock): Buffer {
  const lengths = ORDER.map((p) => block.messages[p].length);
  const payload = Buffer.alloc(FIXED + lengths.reduce((a, b) => a + b, 0));
  const { sapling, orchard, ironwood } = block.treeSizes;
  [block.height, block.time, sapling, orchard, ironwood].forEach((v, i) => {
    payload.writeUInt32BE(v, 4 * i);
  });
  payload.set(block.wireHash, 20);
  payload.set(block.wirePrevHash, 52);
  lengths.forEach((v, i) => {
    payload.writeUInt32BE(v, 84 + 4 * i);
  });
  let at = FIXED;
  for (const p of ORDER) {
    payload.set(block.messages[p], at);
    at += block.messages[p].length;
  }
  const header = Buffer.alloc(RECORD_HEADER);
  header.writeUInt32BE(payload.length, 0);
  header.writeUInt32BE(crc32(payload), 4);
  return Buffer.concat([header, payload]);
}

function decodePayload(p: Buffer): IndexedBlock {
  const u32 = (at: number) => p.readUInt32BE(at);
  const messages = {} as IndexedBlock["messages"];
  let at = FIXED;
  ORDER.forEach((name, i) => {
    const length = u32(84 + 4 * i);
    messages[name] = new Uint8Array(p.subarray(at, at + length));
    at += length;
  });
  return {
    height: u32(0),
    time: u32(4),
    treeSizes: { sapling: u32(8), orchard: u32(12), ironwood: u32(16) },
    wireHash: new Uint8Array(p.subarray(20, 52)),
    wirePrevHash: new Uint8Array(p.subarray(52, 84)),
    messages,
  };
}

function loadLog(path: string): IndexedBlock[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return [];
  }
  const chain: IndexedBlock[] = [];
  let at = 0;
  while (at + RECORD_HEADER <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const end = at + RECORD_HEADER + length;
    if (end > bytes.length || length < FIXED) break;
    const payload = bytes.subarray(at + RECORD_HEADER, end);
    if (crc32(payload) !== bytes.readUInt32BE(at + 4)) break;
    replay(chain, decodePayload(payload));
    at = end;
  }
  // A torn or corrupt record ends the log: cut it off so later appends follow good data.
  if (at < bytes.length) truncateSync(path, at);
  return chain;
}

/** A record at height h replaces the chain from h up; one that does not chain starts afresh. */
function replay(chain: IndexedBlock[], block: IndexedBlock): void {
  const first = chain[0];
  if (first !== undefined && block.height > first.height) {
    chain.length = Math.min(chain.length, block.height - first.height);
    const previous = chain[chain.length - 1];
    if (
      previous !== undefined &&
      previous.height === block.height - 1 &&
      equalBytes(previous.wireHash, block.wirePrevHash)
    ) {
      chain.push(block);
      return;
    }
  }
  chain.length = 0;
  chain.push(block);
}
