import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { IndexedBlock } from "./tail.ts";
import { createTailLog, encodeRecord } from "./tail-log.ts";

function chain(from: number, count: number, branch = 0): IndexedBlock[] {
  const out: IndexedBlock[] = [];
  let prev = new Uint8Array(32).fill(0xee);
  for (let h = from; h < from + count; h++) {
    const wireHash = new Uint8Array(32).fill(h % 251);
    wireHash[0] = branch;
    wireHash[1] = h >> 8;
    out.push({
      height: h,
      wireHash,
      wirePrevHash: prev,
      time: 1_600_000_000 + h,
      treeSizes: { sapling: h, orchard: 2 * h, ironwood: 0 },
      messages: {
        full: new Uint8Array([1, h & 255, 3]),
        shielded: new Uint8Array([h & 255]),
        nullifiers: new Uint8Array(0),
      },
    });
    prev = wireHash;
  }
  return out;
}

describe("the tail log", () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), "tail-log-"));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("loads back exactly the blocks appended, in order", () => {
    const d = dir();
    const blocks = chain(100, 20);
    createTailLog(d, "regtest").append(blocks.slice(0, 7));
    createTailLog(d, "regtest").append(blocks.slice(7));
    expect(createTailLog(d, "regtest").load()).toEqual(blocks);
  });

  it("lets a later record at height h replace the chain from h (a reorg is an append)", () => {
    const d = dir();
    const main = chain(10, 10);
    const fork = chain(15, 3, 1);
    fork[0]!.wirePrevHash = main[4]!.wireHash;
    const log = createTailLog(d, "regtest");
    log.append(main);
    log.append(fork);
    expect(log.load()).toEqual([...main.slice(0, 5), ...fork]);
  });

  it("drops a torn last record at every cut point and keeps appending after the good prefix", () => {
    const d = dir();
    const blocks = chain(0, 3);
    const whole = Buffer.concat(blocks.map(encodeRecord));
    const firstTwo = encodeRecord(blocks[0]!).length + encodeRecord(blocks[1]!).length;
    const path = join(d, "tail-regtest.log");
    for (let cut = firstTwo + 1; cut < whole.length; cut += 7) {
      const log = createTailLog(d, "regtest");
      log.rewrite(blocks);
      truncateSync(path, cut);
      expect(log.load()).toEqual(blocks.slice(0, 2));
      expect(statSync(path).size).toBe(firstTwo);
      log.append(blocks.slice(2));
      expect(log.load()).toEqual(blocks);
    }
  });

  it("stops at a record whose checksum fails instead of serving its bytes", () => {
    const d = dir();
    const blocks = chain(0, 2);
    const log = createTailLog(d, "regtest");
    log.rewrite(blocks);
    const path = join(d, "tail-regtest.log");
    const bytes = readFileSync(path);
    bytes[bytes.length - 1] ^= 0xff;
    rmSync(path);
    appendFileSync(path, bytes);
    expect(log.load()).toEqual(blocks.slice(0, 1));
  });

  it("rewrites atomically to exactly the given blocks", () => {
    const d = dir();
    const log = createTailLog(d, "regtest");
    log.append(chain(0, 10));
    log.rewrite(chain(0, 10).slice(6));
    expect(log.load().map((b) => b.height)).toEqual([6, 7, 8, 9]);
    log.rewrite([]);
    expect(log.load()).toEqual([]);
  });
});
