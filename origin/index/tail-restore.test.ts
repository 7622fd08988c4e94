import { afterEach, describe, expect, it } from "vitest";
import { createTail, type IndexedBlock } from "./tail.ts";
import { createTailLog } from "./tail-log.ts";
import { restoreTail } from "./tail-restore.ts";
import { tempDir } from "./testing.ts";

function chain(from: number, count: number): IndexedBlock[] {
  let prev = new Uint8Array(32).fill(0xaa);
  return Array.from({ length: count }, (_, k) => {
    const wireHash = new Uint8Array(32).fill(k + 1);
    wireHash[31] = from & 0xff;
    const block = {
      height: from + k,
      wireHash,
      wirePrevHash: prev,
      time: 1,
      treeSizes: { sapling: 0, orchard: 0, ironwood: 0 },
      messages: { full: new Uint8Array([k]), shielded: new Uint8Array(0), nullifiers: new Uint8Array(0) },
    };
    prev = wireHash;
    return block;
  });
}

const dirs: { remove(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.remove();
});
const logger = { info: () => {} };

describe("restoring the tail after a restart", () => {
  it("keeps the logged blocks above the sealed tip when they continue it", () => {
    const dir = tempDir("restore");
    dirs.push(dir);
    const blocks = chain(100, 30);
    const log = createTailLog(dir.path, "regtest");
    log.append(blocks);
    const tail = createTail();
    const sealedTip = { height: 109, wireHash: blocks[9]!.wireHash };
    expect(restoreTail({ log, tail, sealedTip, floor: 0, logger })).toBe(110);
    expect(tail.first()?.height).toBe(110);
    expect(tail.last()?.height).toBe(129);
  });

  it("discards a log that leaves a gap or forks from the sealed tip", () => {
    const dir = tempDir("restore");
    dirs.push(dir);
    const log = createTailLog(dir.path, "regtest");
    log.append(chain(120, 10));
    expect(
      restoreTail({
        log,
        tail: createTail(),
        sealedTip: { height: 109, wireHash: new Uint8Array(32) },
        floor: 0,
        logger,
      }),
    ).toBe(Infinity);
    expect(log.load()).toEqual([]);
    const forked = chain(110, 5);
    log.append(forked);
    const tail = createTail();
    expect(
      restoreTail({
        log,
        tail,
        sealedTip: { height: 109, wireHash: new Uint8Array(32).fill(9) },
        floor: 0,
        logger,
      }),
    ).toBe(Infinity);
    expect(tail.size()).toBe(0);
  });

  it("starts at the floor when nothing is sealed", () => {
    const dir = tempDir("restore");
    dirs.push(dir);
    const log = createTailLog(dir.path, "regtest");
    log.append(chain(50, 3));
    expect(restoreTail({ log, tail: createTail(), sealedTip: undefined, floor: 50, logger })).toBe(50);
    expect(restoreTail({ log, tail: createTail(), sealedTip: undefined, floor: 40, logger })).toBe(Infinity);
  });
});
