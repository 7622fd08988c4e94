import { link, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRawBlocks } from "../../proto/history/index.ts";
import { RawSpool } from "./raw-spool.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function spoolDir(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "lightedge-spool-")), "raw-spool");
  dirs.push(dir);
  return dir;
}

/** A distinct block of `height` (bytes of varying length, tagged by a seed). */
const block = (height: number, seed = 0) =>
  Uint8Array.from({ length: 3 + ((height * 7 + seed) % 11) }, (_, i) => (height + seed + i) & 0xff);

async function objectBytes(spool: RawSpool, index: number): Promise<Uint8Array | undefined> {
  const body = spool.object(index);
  if (body === undefined) return undefined;
  const file = await readFile(body.file);
  return new Uint8Array(file.subarray(0, body.length));
}

describe("the raw spool", () => {
  it("holds a range's raw-block object once it has every block, written as they came", async () => {
    const spool = new RawSpool(await spoolDir(), 10);
    for (let h = 10; h < 19; h++) expect(spool.append(h, block(h))).toBe(true);
    expect(spool.object(1)).toBeUndefined(); // nine of ten
    expect(spool.append(19, block(19))).toBe(true);
    const expected = encodeRawBlocks(Array.from({ length: 10 }, (_, k) => block(10 + k)));
    expect(await objectBytes(spool, 1)).toEqual(expected);
    expect(spool.object(1)!.length).toBe(expected.length);
    spool.close();
  });

  it("refuses blocks of a range it did not see begin, and gaps; the caller keeps those bytes", async () => {
    const spool = new RawSpool(await spoolDir(), 10);
    expect(spool.append(13, block(13))).toBe(false); // range 1 begun before this process
    expect(spool.append(20, block(20))).toBe(true);
    expect(spool.append(22, block(22))).toBe(false);
    expect(spool.append(21, block(21))).toBe(true);
    expect(spool.object(1)).toBeUndefined();
    spool.close();
  });

  it("forgets blocks above a fork and takes the new branch's after them", async () => {
    const spool = new RawSpool(await spoolDir(), 10);
    for (let h = 0; h < 10; h++) spool.append(h, block(h));
    for (let h = 10; h < 16; h++) spool.append(h, block(h));
    spool.truncateAbove(12);
    for (let h = 13; h < 20; h++) expect(spool.append(h, block(h, 99))).toBe(true);
    const branch = [10, 11, 12]
      .map((h) => block(h))
      .concat([13, 14, 15, 16, 17, 18, 19].map((h) => block(h, 99)));
    expect(await objectBytes(spool, 1)).toEqual(encodeRawBlocks(branch));
    // A fork below a range's first block removes that range's file.
    spool.truncateAbove(9);
    expect(spool.object(1)).toBeUndefined();
    expect(spool.object(0)).toBeDefined();
    expect(spool.append(10, block(10, 5))).toBe(true);
    spool.close();
  });

  it("never writes a range's file again once handed out: a fork into it unlinks the file", async () => {
    const dir = await spoolDir();
    const spool = new RawSpool(dir, 10);
    for (let h = 0; h < 14; h++) spool.append(h, block(h));
    const body = spool.object(0)!;
    expect(body.frozen).toBe(true);
    // The directory store may have linked it as the range's object.
    const object = join(dir, "..", "object.bin");
    await link(body.file, object);
    const whole = await readFile(object);
    spool.truncateAbove(4);
    // The range is gone from the spool (its blocks are fetched again if ever sealed), the linked
    // object keeps every byte; a range not handed out is still cut in place.
    expect(spool.object(0)).toBeUndefined();
    expect(await readFile(object)).toEqual(whole);
    expect(await readdir(dir)).toEqual([]);
    spool.truncateAbove(-1);
    for (let h = 0; h < 12; h++) expect(spool.append(h, block(h, 3))).toBe(true);
    spool.truncateAbove(10);
    expect(spool.object(1)).toBeUndefined();
    expect((await readdir(dir)).sort()).toEqual(["0.raw", "1.raw"]);
    spool.close();
  });

  it("deletes the files of sealed ranges, and starts empty when it opens again", async () => {
    const dir = await spoolDir();
    const spool = new RawSpool(dir, 10);
    for (let h = 0; h < 25; h++) spool.append(h, block(h));
    expect((await readdir(dir)).sort()).toEqual(["0.raw", "1.raw", "2.raw"]);
    spool.dropThrough(19);
    expect(await readdir(dir)).toEqual(["2.raw"]);
    const again = new RawSpool(dir, 10);
    expect(await readdir(dir)).toEqual([]);
    expect(again.object(2)).toBeUndefined();
    spool.close();
    again.close();
  });
});
